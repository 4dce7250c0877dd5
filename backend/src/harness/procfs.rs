//! The server's memory from `/proc` when it runs on this machine: the pid
//! of the process listening on the target port (through the socket inode
//! in `/proc/net/tcp*` and the `/proc/<pid>/fd` links), and its VmRSS.

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
}
