import Foundation
import HTTPTransfer
import Testing
import TestOrigin

@Suite("TransferLoop: cancellation and shutdown", .timeLimit(.minutes(1)))
struct TransferCancellationTests {
    @Test("cancelling a slow transfer stops it at once and closes the connection")
    func cancelSlowTransfer() async throws {
        // Given: 1 MB whose origin sends the first 64 KB and holds the rest
        let gate = OriginGate()
        gate.open(.firstBytes)
        let origin = try TestOrigin(routes: [
            "/slow": .gated(bytes: pattern(1024 * 1024), firstBytes: 64 * 1024, gate: gate),
            "/after": .body(bytes: pattern(100)),
        ])
        defer { origin.stop() }
        try await withLoop("test-cancel-slow") { (loop) async throws in
            var transfer = ObservedTransfer(loop, origin.url("/slow"))
            #expect(await transfer.firstBytes() != nil)

            // When
            let cancelledAt = ContinuousClock.now
            transfer.handle.cancel()
            transfer.handle.cancel()

            // Then
            let (result, completedAt, _) = await transfer.completion()
            let latency = completedAt - cancelledAt
            print("cancel of a slow transfer completed after \(milliseconds(latency)) ms")
            #expect(result == .failure(.cancelled))
            let served = try await origin.waitUntilServed("/slow")
            #expect(served.clientClosedEarly)
            #expect(served.bytesSent < served.bodyLength)

            // Commands run in order, so once a later transfer is done the second cancel has been handled too.
            #expect(try await loop.fetch(origin.url("/after"), limits: .onLoopback) == Data(pattern(100)))
            #expect(transfer.completions.value == 1)
            #expect(loop.activeTransfers == 0)
        }
    }

    @Test("cancelling a stalled transfer is prompt although no bytes arrive")
    func cancelStalledTransfer() async throws {
        let origin = try TestOrigin(routes: ["/stuck": .stall(declaredLength: 1024 * 1024, sendFirst: 100)])
        defer { origin.stop() }
        try await withLoop("test-cancel-stall") { (loop) async throws in
            var transfer = ObservedTransfer(loop, origin.url("/stuck"))
            #expect(await transfer.firstBytes() == TransferProgress(received: 100, expected: 1024 * 1024))

            let cancelledAt = ContinuousClock.now
            transfer.handle.cancel()

            let (result, completedAt, _) = await transfer.completion()
            let latency = completedAt - cancelledAt
            print("cancel of a stalled transfer completed after \(milliseconds(latency)) ms")
            #expect(result == .failure(.cancelled))
            let served = try await origin.waitUntilServed("/stuck")
            #expect(served.clientClosedEarly)
            #expect(served.bytesSent == 100)
        }
    }

    @Test("cancelling the task of a fetch cancels its transfer")
    func fetchTaskCancelled() async throws {
        let gate = OriginGate()
        gate.open(.firstBytes)
        let origin = try TestOrigin(routes: ["/slow": .gated(bytes: pattern(1024 * 1024), firstBytes: 1024, gate: gate)])
        defer { origin.stop() }
        try await withLoop("test-cancel-task") { (loop) async throws in
            let task = Task { try await loop.fetch(origin.url("/slow"), limits: .onLoopback) }
            try await origin.waitUntilRequested("/slow")

            let cancelledAt = ContinuousClock.now
            task.cancel()

            await #expect(throws: TransferError.cancelled) { try await task.value }
            let latency = ContinuousClock.now - cancelledAt
            print("cancel of a fetch task returned after \(milliseconds(latency)) ms")
            let served = try await origin.waitUntilServed("/slow")
            #expect(served.clientClosedEarly)
            #expect(served.bytesSent < served.bodyLength)
        }
    }

    @Test("a fetch in an already cancelled task fails with .cancelled")
    func fetchInCancelledTask() async throws {
        let origin = try TestOrigin(routes: ["/stuck": .stall(declaredLength: 1000, sendFirst: 0)])
        defer { origin.stop() }
        try await withLoop("test-cancelled-task") { (loop) async throws in

            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await loop.fetch(origin.url("/stuck"), limits: .onLoopback)
            }

            await #expect(throws: TransferError.cancelled) { try await task.value }
        }
    }

    @Test("shutdown cancels running transfers, waits for their completions, and refuses new ones")
    func shutdownCancelsEverything() async throws {
        // Given: a transfer stuck in flight
        let origin = try TestOrigin(routes: ["/stuck": .stall(declaredLength: 1000, sendFirst: 10)])
        defer { origin.stop() }
        let loop = TransferLoop(name: "test-shutdown")
        var transfer = ObservedTransfer(loop, origin.url("/stuck"))
        #expect(await transfer.firstBytes() != nil)

        // When
        await loop.shutdownAndWait()

        // Then: its completion has already been called
        #expect(transfer.completions.value == 1)
        #expect(await transfer.completion().result == .failure(.cancelled))
        #expect(loop.activeTransfers == 0)
        await #expect(throws: TransferError.cancelled) {
            try await loop.fetch(origin.url("/stuck"), limits: .onLoopback)
        }
        await loop.shutdownAndWait()
    }
}
