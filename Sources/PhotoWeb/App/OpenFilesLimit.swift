import Foundation

/// The process's open-files limit. Each connection is a file, so the connection cap is derived
/// from it; at start the soft limit is raised to the hard one.
enum OpenFilesLimit {
    /// Raises the soft limit to the hard limit where it can; returns the limit in force.
    static func raise() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1_024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            // Some systems report an unlimited hard limit that setrlimit refuses; cap it.
            raised.rlim_cur = min(limit.rlim_max, 1_048_576)
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }
}
