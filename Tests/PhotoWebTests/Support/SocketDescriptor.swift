import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A socket descriptor that is closed when its last holder lets it go.
///
/// A thread that reads the socket holds it for as long as it reads: closing the number under a
/// `recv` still running would let the next connection reuse it and be read by two threads (a hang
/// seen in a stress run). Owners end reads with `shutDown()`, which wakes them; the close follows.
final class SocketDescriptor: Sendable {
    let value: Int32

    init(_ value: Int32) {
        self.value = value
    }

    /// Ends the connection both ways: a blocked `recv` returns 0; the number stays reserved.
    func shutDown() {
        shutdown(value, Int32(SHUT_RDWR))
    }

    deinit {
        close(value)
    }
}
