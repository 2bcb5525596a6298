@testable import PhotoPipeline
import Locking
import Synchronization
import Testing

@Suite("Single flight: one piece of work per key at a time")
struct SingleFlightTests {
    /// A gate the test opens: the work waits on it, so the callers surely overlap.
    final class Gate: Sendable {
        private let state = Locked<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

        func wait() async {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    if state.open { return true }
                    state.waiting.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }

        func open() {
            let waiting = state.withLock { state in
                state.open = true
                defer { state.waiting = [] }
                return state.waiting
            }
            waiting.forEach { $0.resume() }
        }
    }

    @Test func callsForOneKeyWhileItsWorkRunsShareItsResult() async throws {
        // Given work for key 7 held at a gate
        let flight = SingleFlight<Int, String>()
        let gate = Gate()
        let runs = Atomic(0)
        let work: @Sendable () async throws -> String = {
            runs.add(1, ordering: .relaxed)
            await gate.wait()
            return "rendered"
        }

        // When 32 callers ask for key 7, and the work is let go only once all of them wait for it
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<32 { group.addTask { try await flight.run(7, work) } }
            while flight.callers(of: 7) < 32 { await Task.yield() }
            gate.open()
            // Then every caller gets the one result
            for try await result in group { #expect(result == "rendered") }
        }
        #expect(runs.load(ordering: .relaxed) == 1)
        #expect(flight.callers(of: 7) == 0)
    }

    @Test func differentKeysRunApartAndAFailureIsEveryWaitersFailure() async throws {
        struct RenderFailed: Error {}
        let flight = SingleFlight<Int, Int>()
        #expect(try await flight.run(1) { 10 } == 10)
        #expect(try await flight.run(2) { 20 } == 20)
        await #expect(throws: RenderFailed.self) { try await flight.run(3) { throw RenderFailed() } }
        // A key whose work ended runs again when asked again
        #expect(try await flight.run(1) { 11 } == 11)
    }
}
