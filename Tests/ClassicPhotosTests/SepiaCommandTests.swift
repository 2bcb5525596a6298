import Foundation
import PhotoCodecs
import Testing
import TestOrigin

/// `classic-photos sepia`, run as a user runs it: the built executable, a real file, an exit status.
@Suite("sepia command")
struct SepiaCommandTests {
    /// The `classic-photos` executable built beside the test bundle.
    static let executable: URL = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if directory.lastPathComponent.hasSuffix(".xctest") { directory.deleteLastPathComponent() }
        return directory.appendingPathComponent("classic-photos")
    }()

    func run(_ arguments: [String]) async throws -> ToolRun {
        try await ToolRun.run(Self.executable, arguments)
    }

    /// Writes `photo` (made with the codecs of a debug build: slow under load) off the pool.
    func write(_ photo: @escaping @Sendable () throws -> Data, to path: String) async throws {
        try await offThePool { try photo().write(to: URL(fileURLWithPath: path)) }
    }

    func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("sepia-\(UUID().uuidString)-\(name)").path
    }

    @Test func aThumbnailOfAPhotoIsWrittenAndExitsZero() async throws {
        let input = temporary("in.jpg"), output = temporary("out.jpg")
        defer { try? FileManager.default.removeItem(atPath: input); try? FileManager.default.removeItem(atPath: output) }
        try await write({ try JPEGEncoder.encode(SamplePhoto.make(seed: 3, width: 1600, height: 1067)) }, to: input)

        let result = try await run(["sepia", input, output, "--height", "160"])

        #expect(result.status == 0, "\(result.errors)")
        let written = try ImageDecoder.decode(Data(contentsOf: URL(fileURLWithPath: output)), minimumHeight: nil, limits: .init())
        #expect(written.height == 160 && written.width == 240)
        #expect(result.text.contains("240x160 JPEG"))
    }

    @Test func aPNGOutputIsPNGAtFullSize() async throws {
        let input = temporary("in.jpg"), output = temporary("out.png")
        defer { try? FileManager.default.removeItem(atPath: input); try? FileManager.default.removeItem(atPath: output) }
        try await write({ try JPEGEncoder.encode(SamplePhoto.make(seed: 4, width: 320, height: 200)) }, to: input)

        let result = try await run(["sepia", input, output, "--intensity", "1"])

        #expect(result.status == 0, "\(result.errors)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(ImageFormat(sniffing: bytes) == .png)
        #expect(try PNGDecoder.decode(bytes).width == 320)
    }

    @Test func anExifOrientationSixPhotoIsWrittenUpright() async throws {
        // Given: stored 64x48, dark left half and bright right half, tagged "turn 90° clockwise"
        let input = temporary("in.jpg"), output = temporary("out.jpg")
        defer { try? FileManager.default.removeItem(atPath: input); try? FileManager.default.removeItem(atPath: output) }
        let stored = PixelBuffer(width: 64, height: 48, channels: 3, bytes: (0..<48).flatMap { _ in
            (0..<64).flatMap { x in [UInt8](repeating: x < 32 ? 30 : 230, count: 3) }
        })
        try SamplePhoto.tagged(JPEGEncoder.encode(stored), orientation: 6).write(to: URL(fileURLWithPath: input))

        // When
        let result = try await run(["sepia", input, output])

        // Then: upright 48x64, the stored left (dark) half now on top
        #expect(result.status == 0, "\(result.errors)")
        let written = try ImageDecoder.decode(Data(contentsOf: URL(fileURLWithPath: output)))
        #expect((written.width, written.height) == (48, 64))
        #expect(written[24, 8][0] < 100 && written[24, 56][0] > 150, "top \(written[24, 8]) bottom \(written[24, 56])")
    }

    @Test(arguments: [
        ("not-an-image", ["--height", "100"], "This is a web page, not an image"),
        ("gif", [], "GIF images are not supported"),
        ("missing", [], "cannot read"),
        ("photo", ["--intensity", "2"], "--intensity must be between 0 and 1"),
    ])
    func badInputExitsNonZeroWithAOneLineReason(input kind: String, extra: [String], reason: String) async throws {
        let input = temporary("in"), output = temporary("out.jpg")
        defer { try? FileManager.default.removeItem(atPath: input); try? FileManager.default.removeItem(atPath: output) }
        switch kind {
        case "not-an-image": try Data("<html>nope</html>".utf8).write(to: URL(fileURLWithPath: input))
        case "gif": try Data("GIF89a\u{01}\u{00}\u{01}\u{00}".utf8).write(to: URL(fileURLWithPath: input))
        case "photo": try JPEGEncoder.encode(SamplePhoto.make(seed: 5, width: 64, height: 64)).write(to: URL(fileURLWithPath: input))
        default: break
        }

        let result = try await run(["sepia", input, output] + extra)

        #expect(result.status != 0)
        #expect(result.errors.contains(reason), "\(result.errors)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
