#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Locking

/// The `Date` field as Hummingbird writes it (RFC 9110's IMF-fixdate, "Sat, 28 Nov 2026 11:17:48
/// GMT"), formatted once a second for every connection.
enum HTTPDate {
    private static let kept = Locked((second: -1, text: ""))
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Now, to the second.
    static var now: String {
        let second = time(nil)
        if let text = kept.withLock({ $0.second == second ? $0.text : nil }) { return text }
        let text = format(second)
        kept.withLock { $0 = (second, text) }
        return text
    }

    static func format(_ second: time_t) -> String {
        var seconds = second
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
