import Foundation
import Locking
#if canImport(Glibc)
import Glibc
#endif

/// Makes the generated sample photos on disk: each one the moment it is first asked for, and the
/// rest in the background in row order, so a list of any length is served at once (making 10,000
/// photos takes minutes; the first screen needs a handful). Every photo is made once, whoever asks.
final class SampleMaker: Sendable {
    /// What is known of each photo number. Lock order: a leaf (nothing is called under it).
    private struct State {
        var made: Set<Int> = []
        /// Photos being made now, with who waits for each (a number per wait, to withdraw it).
        var making: [Int: [(wait: Int, continuation: CheckedContinuation<Void, any Error>)]] = [:]
        var lastWait = 0
        var stopped = false
        var failure: String?
    }

    private let directory: URL
    private let files: [Int: String]
    /// A photo's bytes for its number and file name (the sample's own; a test may hold it).
    private let draw: @Sendable (_ number: Int, _ file: String) throws -> Data
    private let state = Locked(State())
    /// Follows the background pass: `(done, total)` after each photo missing at its start is on disk (or being made), whoever made it.
    private let progress: (@Sendable (_ made: Int, _ total: Int) -> Void)?

    /// A maker for `files` (photo number -> file name) in `directory`; those already on disk count as made.
    init(directory: URL, files: [Int: String], progress: (@Sendable (_ made: Int, _ total: Int) -> Void)?,
         draw: @escaping @Sendable (_ number: Int, _ file: String) throws -> Data = { try SampleLibrary.render(number: $0, file: $1) }) throws {
        self.directory = directory
        self.files = files
        self.progress = progress
        self.draw = draw
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        Self.removeInterruptedWrites(in: directory)
        let present = Set((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
        state.withLock { $0.made = Set(files.filter { present.contains($0.value) }.map(\.key)) }
    }

    /// How many of the photos are not on disk yet.
    var missing: Int { state.withLock { files.count - $0.made.count } }

    /// Makes the missing photos one after another in row order, on a thread of its own at the lowest
    /// priority: never on Dispatch's pool, whose few threads the filtrations share, and only with CPU
    /// time nothing else wants (a first start of 10,000 photos takes a core for a quarter of an hour).
    func startBackground() {
        let thread = Thread { [self] in
            #if canImport(Glibc)
            // Linux's nice is per thread: this lowers this thread's alone.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
            #endif
            // Each photo missing now counts once, whoever makes it (a row's request, another server
            // sharing the folder, or this pass), so the count reaches the total when all are on disk.
            let missingNow = state.withLock { state in files.keys.filter { !state.made.contains($0) }.sorted() }
            for (position, number) in missingNow.enumerated() {
                if let file = files[number], FileManager.default.fileExists(atPath: directory.appendingPathComponent(file).path) {
                    state.withLock { _ = $0.made.insert(number) }
                } else {
                    switch claim(number) {
                    case .stop: return
                    case .skip: break
                    case .make:
                        let outcome = render(number)
                        finish(number, outcome)
                        guard case .success = outcome else { return }
                    }
                }
                progress?(position + 1, missingNow.count)
            }
        }
        thread.name = "sample-maker"
        thread.start()
    }

    /// Makes every missing photo now, two at a time per core, and returns how many it made (for the
    /// `samples` command: a demo machine or a test that wants the files before a server starts).
    func makeAll() throws -> Int {
        let numbers = files.keys.sorted()
        let made = Locked(0)
        DispatchQueue.concurrentPerform(iterations: numbers.count) { position in
            let number = numbers[position]
            guard case .make = claim(number) else { return }
            let outcome = render(number)
            finish(number, outcome)
            if case .success = outcome { made.withLock { $0 += 1 } }
        }
        if let failure = state.withLock({ $0.failure }) { throw SampleOriginError.generationFailed(failure) }
        return made.withLock { $0 }
    }

    /// Stops the background pass after the photo it is making (not waited for: at nice 19 on a busy
    /// machine that can take seconds, and its write is atomic whenever it ends).
    func stop() {
        state.withLock { $0.stopped = true }
    }

    /// Returns once photo `number` is on disk: at once when made, after the maker making it now, or
    /// after making it here (on a Dispatch thread, never on the caller's). A cancelled caller stops
    /// waiting at once (a server's shutdown cannot wait for the background's nice-19 thread on a busy
    /// machine); the photo is still made.
    func ensure(_ number: Int) async throws {
        guard files[number] != nil else { return }
        let wait = state.withLock { state in
            state.lastWait += 1
            return state.lastWait
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Decision { case made, cancelled, waits, makes }
                let decision = state.withLock { state -> Decision in
                    if state.made.contains(number) { return .made }
                    // Cancelled before this wait was written down: the handler found nothing to withdraw.
                    if Task.isCancelled { return .cancelled }
                    let makes = state.making[number] == nil
                    state.making[number, default: []].append((wait, continuation))
                    return makes ? .makes : .waits
                }
                switch decision {
                case .made: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .waits: break
                case .makes:
                    DispatchQueue.global(qos: .userInitiated).async { [self] in finish(number, render(number)) }
                }
            }
        } onCancel: {
            let withdrawn = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let position = state.making[number]?.firstIndex(where: { $0.wait == wait }) else { return nil }
                return state.making[number]?.remove(at: position).continuation
            }
            withdrawn?.resume(throwing: CancellationError())
        }
    }

    private enum Claim { case make, skip, stop }

    /// The background's decision for `number`, taken under the lock: make it, leave it (made, or being made), or stop.
    private func claim(_ number: Int) -> Claim {
        state.withLock { state in
            if state.stopped || state.failure != nil { return .stop }
            if state.made.contains(number) || state.making[number] != nil { return .skip }
            state.making[number] = []
            return .make
        }
    }

    /// Records the outcome for `number` and wakes whoever waits for it, after the lock.
    private func finish(_ number: Int, _ outcome: Result<Void, SampleOriginError>) {
        let waiting = state.withLock { state in
            if case .failure(let error) = outcome { state.failure = state.failure ?? error.description } else { state.made.insert(number) }
            return state.making.removeValue(forKey: number) ?? []
        }
        for (_, continuation) in waiting { continuation.resume(with: outcome.mapError { $0 }) }
    }

    /// Renders and writes photo `number` (a second of CPU at most: run it off the cooperative pool).
    private func render(_ number: Int) -> Result<Void, SampleOriginError> {
        guard let file = files[number] else { return .success(()) }
        do {
            try draw(number, file).write(to: directory.appendingPathComponent(file), options: .atomic)
            return .success(())
        } catch {
            return .failure(.generationFailed("\(file): \(error)"))
        }
    }

    /// How old a temporary file must be to be taken for an interrupted write: a live write's lasts
    /// milliseconds, and another server sharing the folder (a cluster's instances, the test suites'
    /// servers starting together on a fresh machine) may be making one now. Removing that one failed
    /// its write, and the row asking for the photo with it (issue 63).
    private static let interruptedWriteAge: TimeInterval = 60

    /// Deletes what a run killed while writing left behind: Foundation's atomic writes go through a
    /// temporary `.dat.nosync*` file in the same folder, which nothing else would ever remove.
    private static func removeInterruptedWrites(in directory: URL) {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for file in files where file.hasPrefix(".dat.nosync") {
            let url = directory.appendingPathComponent(file)
            guard let modified = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date,
                  -modified.timeIntervalSinceNow > interruptedWriteAge else { continue }
            try? FileManager.default.removeItem(at: url)
        }
    }
}
