//! The server's memory and CPU time from `/proc` when it runs on this
//! machine: the pid of the process listening on the target port (through
//! the socket inode in `/proc/net/tcp*` and the `/proc/<pid>/fd` links),
//! its VmRSS, and its utime + stime (and cutime + cstime, the CPU of the
//! children it has waited for, such as the reference engine's ffmpeg).

use std::collections::HashSet;

/// Inodes of the sockets listening on `port` in a `/proc/net/tcp` table.
pub fn listen_inodes(table: &str, port: u16) -> HashSet<u64> {
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let local = fields.get(1)?;
            let state = fields.get(3)?;
            let inode = fields.get(9)?;
            let (_, port_hex) = local.rsplit_once(':')?;
            let p = u16::from_str_radix(port_hex, 16).ok()?;
            (p == port && *state == "0A").then(|| inode.parse().ok())?
        })
        .collect()
}

/// The pid of a process (readable by us) listening on TCP `port`.
pub fn listening_pid(port: u16) -> Option<u32> {
    let mut inodes = HashSet::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        if let Ok(t) = std::fs::read_to_string(table) {
            inodes.extend(listen_inodes(&t, port));
        }
    }
    if inodes.is_empty() {
        return None;
    }
    let wanted: HashSet<String> = inodes.iter().map(|i| format!("socket:[{i}]")).collect();
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(fds) = std::fs::read_dir(entry.path().join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if let Ok(link) = std::fs::read_link(fd.path()) {
                if link.to_str().is_some_and(|l| wanted.contains(l)) {
                    return Some(pid);
                }
            }
        }
    }
    None
}

/// VmRSS in bytes from a `/proc/<pid>/status` text.
pub fn parse_vm_rss(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The resident memory of `pid`, in bytes.
pub fn rss_bytes(pid: u32) -> Option<u64> {
    parse_vm_rss(&std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?)
}

/// Clock ticks per second of `/proc/<pid>/stat` (USER_HZ, fixed at 100 by
/// the kernel's user ABI whatever its internal HZ).
const USER_HZ: f64 = 100.0;

/// utime + stime, in clock ticks, from a `/proc/<pid>/stat` text. The
/// command name (field 2) may hold spaces and parentheses, so fields are
/// counted after its last `)`: there field 3 (state) is the first.
pub fn parse_cpu_ticks(stat: &str) -> Option<u64> {
    let (_, rest) = stat.rsplit_once(')')?;
    let mut fields = rest.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(utime + stime)
}

/// (utime + stime, cutime + cstime) in clock ticks: the process's own CPU
/// and that of its children it has waited for.
pub fn parse_cpu_ticks_split(stat: &str) -> Option<(u64, u64)> {
    let (_, rest) = stat.rsplit_once(')')?;
    let f: Vec<u64> = rest
        .split_whitespace()
        .skip(11)
        .take(4)
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    match f.as_slice() {
        [utime, stime, cutime, cstime] => Some((utime + stime, cutime + cstime)),
        _ => None,
    }
}

/// The CPU `pid` has used itself and through the children it has waited
/// for, in seconds: `(own, children)`.
pub fn cpu_seconds_split(pid: u32) -> Option<(f64, f64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (own, children) = parse_cpu_ticks_split(&stat)?;
    Some((own as f64 / USER_HZ, children as f64 / USER_HZ))
}

/// The CPU time `pid` has used (all its threads), in seconds.
pub fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    Some(parse_cpu_ticks(&stat)? as f64 / USER_HZ)
}

/// The server's CPU time over a window of the run (the load, not the set-up).
#[derive(Debug, Clone)]
pub struct CpuWindow {
    pid: Option<u32>,
    start: Option<f64>,
    /// Further server-side processes (a multi-node run) and their CPU at the start.
    also: Vec<(u32, Option<f64>)>,
}

impl CpuWindow {
    pub fn start(pid: Option<u32>) -> CpuWindow {
        CpuWindow {
            pid,
            start: pid.and_then(cpu_seconds),
            also: Vec::new(),
        }
    }

    /// Counts these processes' CPU too (`--also-pid`: the other node, the
    /// store server, Redis, the proxy of a multi-node run).
    pub fn with(mut self, pids: &[u32]) -> CpuWindow {
        self.also = pids.iter().map(|p| (*p, cpu_seconds(*p))).collect();
        self
    }

    /// Seconds of CPU the server (every process of it) used since
    /// [`CpuWindow::start`]; `None` when any of them could not be read.
    pub fn used(&self) -> Option<f64> {
        let now = self.pid.and_then(cpu_seconds)?;
        let mut used = (now - self.start?).max(0.0);
        for (pid, start) in &self.also {
            used += (cpu_seconds(*pid)? - (*start)?).max(0.0);
        }
        Some(used)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_listening_inode_of_a_port() {
        let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 12345 1 0 100 0 0 10 0
   1: 0100007F:1F90 0100007F:D431 01 00000000:00000000 00:00000000 00000000  1000        0 999 1 0 100 0 0 10 0
   2: 0100007F:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 777 1 0 100 0 0 10 0";
        assert_eq!(listen_inodes(table, 8080), HashSet::from([12345]));
        assert_eq!(listen_inodes(table, 80), HashSet::from([777]));
        assert!(listen_inodes(table, 81).is_empty());
    }

    #[test]
    fn reads_vm_rss_and_finds_this_process() {
        assert_eq!(
            parse_vm_rss("Name:\teasel\nVmRSS:\t   20480 kB\nThreads: 4\n"),
            Some(20480 * 1024)
        );
        assert_eq!(parse_vm_rss("Name: x\n"), None);
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        assert_eq!(listening_pid(port), Some(std::process::id()));
        assert!(rss_bytes(std::process::id()).unwrap() > 0);
    }

    #[test]
    fn reads_cpu_ticks_past_a_command_with_spaces_and_parens() {
        let stat =
            "4242 (my (odd) cmd) S 1 4242 4242 0 -1 4194304 100 0 0 0 250 75 0 0 20 0 4 0 1000 0 0";
        assert_eq!(parse_cpu_ticks(stat), Some(325));
        assert_eq!(parse_cpu_ticks_split(stat), Some((325, 0)));
        let with_children =
            "9 (ffmpeg parent) R 1 9 9 0 -1 0 0 0 0 0 120 30 400 50 20 0 4 0 1000 0 0";
        assert_eq!(parse_cpu_ticks_split(with_children), Some((150, 450)));
        assert_eq!(
            parse_cpu_ticks_split("9 (x) R 1 9 9 0 -1 0 0 0 0 0 120 30 400"),
            None
        );
        assert!(cpu_seconds_split(std::process::id()).is_some());
        assert_eq!(parse_cpu_ticks("4242 (x) S 1"), None);
        assert_eq!(parse_cpu_ticks("no parens"), None);
        // This process has run some code by now, and the window never goes back.
        let me = std::process::id();
        assert!(cpu_seconds(me).is_some());
        let w = CpuWindow::start(Some(me));
        let mut x = 0u64;
        for i in 0..2_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        assert!(x != 1);
        assert!(w.used().unwrap() >= 0.0);
        assert_eq!(CpuWindow::start(None).used(), None);
        let both = CpuWindow::start(Some(me)).with(&[me]);
        assert!(both.used().unwrap() >= 0.0);
        // A process that cannot be read makes the figure unknown, not smaller.
        assert_eq!(CpuWindow::start(Some(me)).with(&[u32::MAX]).used(), None);
    }
}
