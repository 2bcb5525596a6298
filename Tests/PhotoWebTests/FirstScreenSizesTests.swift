@testable import PhotoWeb
import Testing

@Suite("The rows each client's window showed")
struct FirstScreenSizesTests {
    @Test func aClientsLatestStopIsKeptAndTheOldestClientGoesPastCapacity() {
        // Given room for two clients
        let sizes = FirstScreenSizes(capacity: 2)
        sizes.remember(6, for: "a")
        sizes.remember(9, for: "b")
        // When a's window shows 8 rows at its next stop, and a third client comes
        sizes.remember(8, for: "a")
        sizes.remember(7, for: "c")
        // Then a's latest is kept, b (told about longest ago) has gone, c is known
        #expect(sizes.rows(for: "a") == 8 && sizes.rows(for: "b") == nil && sizes.rows(for: "c") == 7)
        // And a viewer of no client (a lab lane) or an empty screen is not remembered
        sizes.remember(5, for: nil)
        sizes.remember(0, for: "d")
        #expect(sizes.rows(for: nil) == nil && sizes.rows(for: "d") == nil && sizes.rows(for: "a") == 8)
    }
}
