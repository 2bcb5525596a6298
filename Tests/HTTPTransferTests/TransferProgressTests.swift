import HTTPTransfer
import Testing

@Suite("TransferProgress")
struct TransferProgressTests {
    @Test("progress has a fraction only when the length is known")
    func progressFraction() {
        #expect(TransferProgress(received: 25, expected: 100).fraction == 0.25)
        #expect(TransferProgress(received: 25, expected: nil).fraction == nil)
        #expect(TransferProgress(received: 0, expected: 0).fraction == nil)
    }
}
