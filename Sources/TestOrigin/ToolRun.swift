public import Foundation
import Locking

/// A program run as a user runs it: its exit status and what it wrote.
public struct ToolRun: Sendable {
    public let status: Int32
    /// Its standard output, as bytes.
    public let output: Data
    /// Its standard error, as text.
    public let errors: String

    /// Its standard output, as text.
    public var text: String { String(decoding: output, as: UTF8.self) }

    /// Runs `tool` with `arguments`, `input` on its standard input, and waits for it to exit, all on
    /// a thread of its own (`offThePool`): a child process waited for on one of Swift concurrency's
    /// two threads stalls every test in the process for as long as the child takes on a loaded machine.
    public static func run(_ tool: URL, _ arguments: [String], input: Data? = nil) async throws -> ToolRun {
        try await offThePool { () throws -> ToolRun in
            let process = Process()
            process.executableURL = tool
            process.arguments = arguments
            let output = Pipe(), errors = Pipe(), standardInput = Pipe()
            process.standardOutput = output
            process.standardError = errors
            process.standardInput = input == nil ? FileHandle.nullDevice : standardInput
            try process.run()
            // Standard error is drained and the input written beside the reading of standard output,
            // so a child that fills one pipe while we wait on another never waits on us.
            let errorBytes = Locked(Data())
            let done = DispatchGroup()
            done.enter()
            Thread.detachNewThread {
                let data = errors.fileHandleForReading.readDataToEndOfFile()
                errorBytes.withLock { $0 = data }
                done.leave()
            }
            if let input {
                let writer = standardInput.fileHandleForWriting
                done.enter()
                Thread.detachNewThread {
                    writer.write(input)
                    try? writer.close()
                    done.leave()
                }
            }
            let data = output.fileHandleForReading.readDataToEndOfFile()
            done.wait()
            process.waitUntilExit()
            return ToolRun(status: process.terminationStatus, output: data, errors: String(decoding: errorBytes.withLock { $0 }, as: UTF8.self))
        }
    }
}
