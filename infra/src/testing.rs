//! Test support (cargo feature `test-support`): a real `redis-server`
//! (Debian's package) on a free port, for the Redis queue and bus tests and
//! the backend's integration tests. Redis is part of the product, so a
//! missing `redis-server` fails the tests with a clear message instead of
//! skipping them.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The binary looked up on `PATH` (overridable with `EASEL_REDIS_SERVER`).
pub const REDIS_SERVER_BIN: &str = "redis-server";
/// How long a started server may take to answer PING.
const START_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum TestServerError {
    #[error(
        "cannot run `{bin}` ({source}): install Debian's redis-server \
         (`apt-get install redis-server`); Redis is part of Easel's test suite"
    )]
    NotInstalled { bin: String, source: std::io::Error },
    #[error("redis-server on port {port} did not start: {reason}")]
    DidNotStart { port: u16, reason: String },
    #[error("finding a free port: {0}")]
    NoPort(std::io::Error),
}

/// A `redis-server` child process, killed on drop. Nothing is persisted
/// (`--save "" --appendonly no`): a restart starts empty, like a Redis
/// crash without persistence.
pub struct RedisServer {
    port: u16,
    child: Option<Child>,
}

fn binary() -> String {
    std::env::var("EASEL_REDIS_SERVER").unwrap_or_else(|_| REDIS_SERVER_BIN.to_owned())
}

fn free_port() -> Result<u16, TestServerError> {
    let l = TcpListener::bind("127.0.0.1:0").map_err(TestServerError::NoPort)?;
    let port = l.local_addr().map_err(TestServerError::NoPort)?.port();
    Ok(port)
}

/// True when the server on `port` answers PING with PONG.
fn answers_ping(port: u16) -> bool {
    let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_millis(500)));
    if s.write_all(b"PING\r\n").is_err() {
        return false;
    }
    let mut buf = [0u8; 7];
    s.read_exact(&mut buf).is_ok() && &buf == b"+PONG\r\n"
}

impl RedisServer {
    /// Starts a server on a free port; panics with an explanation when it
    /// cannot (for tests).
    pub fn start() -> RedisServer {
        match RedisServer::try_start() {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        }
    }

    pub fn try_start() -> Result<RedisServer, TestServerError> {
        let mut last = None;
        // Another process may take the port between our probe and the
        // server's bind: try a few ports.
        for _ in 0..5 {
            let port = free_port()?;
            match RedisServer::spawn(port) {
                Ok(child) => {
                    return Ok(RedisServer {
                        port,
                        child: Some(child),
                    })
                }
                Err(e @ TestServerError::NotInstalled { .. }) => return Err(e),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or(TestServerError::DidNotStart {
            port: 0,
            reason: "no attempt".to_owned(),
        }))
    }

    fn spawn(port: u16) -> Result<Child, TestServerError> {
        let bin = binary();
        let mut child = Command::new(&bin)
            .args(["--port", &port.to_string()])
            .args(["--bind", "127.0.0.1"])
            .args(["--save", ""])
            .args(["--appendonly", "no"])
            .args(["--daemonize", "no"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|source| TestServerError::NotInstalled { bin, source })?;
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if answers_ping(port) {
                return Ok(child);
            }
            if let Ok(Some(status)) = child.try_wait() {
                return Err(TestServerError::DidNotStart {
                    port,
                    reason: format!("exited with {status}"),
                });
            }
            if Instant::now() >= deadline {
                let _ = child.kill();
                let _ = child.wait();
                return Err(TestServerError::DidNotStart {
                    port,
                    reason: "no PONG in time".to_owned(),
                });
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Kills the server at once (SIGKILL), like a crash. Idempotent.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Kills the server if it runs, then starts a new one on the same port
    /// (empty: nothing was persisted).
    pub fn restart(&mut self) -> Result<(), TestServerError> {
        self.kill();
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            match RedisServer::spawn(self.port) {
                Ok(child) => {
                    self.child = Some(child);
                    return Ok(());
                }
                Err(e @ TestServerError::NotInstalled { .. }) => return Err(e),
                Err(e) if Instant::now() >= deadline => return Err(e),
                Err(_) => std::thread::sleep(Duration::from_millis(50)),
            }
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
    }
}
