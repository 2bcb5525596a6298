import Foundation
@testable import PhotoWeb
import TestOrigin
@testable import PhotoTransport

/// Self-signed certificates for 127.0.0.1 made with `openssl` in a folder of the test's own.
enum TestCertificates {
    /// A certificate with CN `name` and its key, as `TLSFiles` in `folder`.
    static func make(_ name: String, in folder: String) async throws -> TLSFiles {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let files = TLSFiles(certificate: folder + "/\(name).pem", key: folder + "/\(name).key")
        try await run("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
            "-subj", "/CN=\(name)", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", files.key, "-out", files.certificate,
        ])
        return files
    }

    /// Runs a tool (off the pool) and returns its standard output; throws when it exits non-zero.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) async throws -> String {
        let run = try await ToolRun.run(URL(fileURLWithPath: tool), arguments)
        guard run.status == 0 else { throw ToolFailure(tool: tool, status: run.status) }
        return run.text
    }

    struct ToolFailure: Error {
        let tool: String
        let status: Int32
    }
}
