#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// CPU time used by the calling thread since the clock was made: what a filtration really cost,
/// whatever else the machine was doing.
struct ThreadCPUClock {
    private let start = ThreadCPUClock.now()

    var elapsed: Double { ThreadCPUClock.now() - start }

    private static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) * 1e-9
    }
}
