//! `easel-harness SCENARIO --target URL`: the load harness as its own
//! binary, apart from the product (`easel`): parses [`HarnessArgs`], runs
//! the scenario on its own runtime, prints the table on stderr and, with
//! `--json`, one JSON object on stdout.

use std::process::ExitCode;

use clap::Parser;
use easel_harness::{run, HarnessArgs};

#[derive(Parser)]
#[command(
    name = "easel-harness",
    version,
    about = "Easel's load harness: drives a server through its protocol and reports figures \
             (a table on stderr; with --json, one JSON object on stdout)"
)]
struct Cli {
    #[command(flatten)]
    args: HarnessArgs,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match drive(&cli.args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("easel-harness: {e}");
            ExitCode::FAILURE
        }
    }
}

fn drive(args: &HarnessArgs) -> Result<(), String> {
    // Pinned to one core (`taskset -c 1`, as `make bench` runs it), a
    // multi-thread runtime would have the block_on thread and its worker
    // take turns on that core: one thread drives everything instead.
    let one_core = std::thread::available_parallelism().map_or(true, |n| n.get() == 1);
    let rt = if one_core {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
    }
    .map_err(|e| format!("starting the runtime: {e}"))?;
    let report = rt.block_on(run(args)).map_err(|e| e.to_string())?;
    eprint!("{}", report.table());
    if args.json {
        let json =
            serde_json::to_string(&report).map_err(|e| format!("serialising the report: {e}"))?;
        #[allow(clippy::print_stdout)]
        {
            println!("{json}");
        }
    }
    Ok(())
}
