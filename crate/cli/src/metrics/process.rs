//! The server process's own figures, under the names every Prometheus client library gives them
//! (`process_resident_memory_bytes`, `process_cpu_seconds_total`, `process_open_fds`,
//! `process_max_fds`, `process_start_time_seconds`), read from `/proc/self` at each scrape.
//! `prometheus-client` has no process collector; where `/proc` cannot be read (not Linux) the
//! series are left out.

use super::families::Exposition;

/// Clock ticks per second of `/proc`'s CPU times (`USER_HZ`: 100 on every Linux architecture
/// the kernel exports to user space).
const USER_HZ: f64 = 100.0;

/// Fields of `/proc/self/stat` after the command's name (which may hold spaces and parentheses,
/// so the line is split after its last `)`): the state is field 3, so field N is at N - 3.
fn stat_fields(stat: &str) -> Option<Vec<&str>> {
    let after = stat.rsplit_once(')')?.1;
    Some(after.split_whitespace().collect())
}

/// Seconds of CPU (user and system) and the start, in ticks since boot, from `/proc/self/stat`.
fn cpu_and_start(stat: &str) -> Option<(f64, u64)> {
    let f = stat_fields(stat)?;
    let ticks = |n: usize| f.get(n - 3)?.parse::<u64>().ok();
    let cpu = (ticks(14)? + ticks(15)?) as f64 / USER_HZ;
    Some((cpu, ticks(22)?))
}

/// `VmRSS` of `/proc/self/status`, in bytes.
fn resident_bytes(status: &str) -> Option<u64> {
    let kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .split_whitespace()
        .next()?
        .parse::<u64>()
        .ok()?;
    Some(kib * 1024)
}

/// The soft limit on open files, from `/proc/self/limits`.
fn max_fds(limits: &str) -> Option<u64> {
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line["Max open files".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The boot time, in Unix seconds, from `/proc/stat`.
fn boot_time(stat: &str) -> Option<u64> {
    stat.lines()
        .find_map(|l| l.strip_prefix("btime "))?
        .trim()
        .parse()
        .ok()
}

/// Adds the process's figures that can be read now.
pub(crate) fn add(x: &mut Exposition) {
    let read = |p: &str| std::fs::read_to_string(p).ok();
    if let Some(rss) = read("/proc/self/status").as_deref().and_then(resident_bytes) {
        x.add("process_resident_memory_bytes", vec![], rss);
    }
    let stat = read("/proc/self/stat");
    if let Some((cpu, start)) = stat.as_deref().and_then(cpu_and_start) {
        x.add("process_cpu_seconds", vec![], cpu);
        if let Some(boot) = read("/proc/stat").as_deref().and_then(boot_time) {
            x.add(
                "process_start_time_seconds",
                vec![],
                boot as f64 + start as f64 / USER_HZ,
            );
        }
    }
    if let Ok(fds) = std::fs::read_dir("/proc/self/fd") {
        x.add("process_open_fds", vec![], fds.count());
    }
    if let Some(max) = read("/proc/self/limits").as_deref().and_then(max_fds) {
        x.add("process_max_fds", vec![], max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_files_are_read_by_their_fields() {
        // a command name with a space and a parenthesis, as the kernel writes it
        let stat = "4242 (spate (x) p) S 1 4242 4242 0 -1 4194560 900 0 0 0 250 75 0 0 20 0 3 0 123456 \
                    20000000 1500 18446744073709551615";
        assert_eq!(cpu_and_start(stat), Some((3.25, 123456)));
        assert_eq!(cpu_and_start("4242 (cut"), None);
        assert_eq!(
            resident_bytes("Name:\tx\nVmRSS:\t   2048 kB\n"),
            Some(2048 * 1024)
        );
        let limits = "Limit                     Soft Limit           Hard Limit           Units     \n\
                      Max open files            1024                 524288               files     \n";
        assert_eq!(max_fds(limits), Some(1024));
        assert_eq!(boot_time("cpu 1 2\nbtime 1767225600\n"), Some(1_767_225_600));
    }
}
