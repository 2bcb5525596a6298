import Foundation
import PhotoCodecs

/// One input through the code that reads untrusted image bytes: the Exif reader on the raw bytes
/// (orientation and thumbnail), the decoders at full and at a reduced scale, the thumbnail path, and
/// the previews of a photo still arriving (the input whole, and its first half and its first quarter,
/// as a download would have them), and the decode made as its bytes arrive; errors are expected,
/// crashes are not.
enum CodecFuzzer {
    /// Small limits keep every input's work bounded, so a slow input shows as a hang, not as a big photo.
    static let limits = DecodeLimits(maxPixels: 4_000_000)

    /// Runs one input on the calling thread.
    static func run(_ bytes: UnsafeRawBufferPointer) {
        let data = Data(bytes)
        _ = EXIFReader.orientation(inAPP1: bytes)
        _ = EXIFReader.orientation(inAPP1: Array("Exif".utf8) + [0, 0] + Array(bytes))
        _ = EXIFReader.thumbnail(inAPP1: bytes)
        _ = EXIFReader.thumbnail(inAPP1: Array("Exif".utf8) + [0, 0] + Array(bytes))
        _ = ForeignFormat(sniffing: bytes)
        _ = try? ImageDecoder.decode(data, limits: limits)
        _ = try? ImageDecoder.decode(data, minimumHeight: 16, limits: limits)
        _ = try? SepiaRenderer(limits: limits).thumbnail(of: data, height: 16, unfiltered: { _ in })
        for share in [1, 2, 4] {
            _ = try? SepiaRenderer(limits: limits).arrivedPreview(of: data.prefix(data.count / share), height: 16)
        }
        decodeAhead(data)
    }

    /// The decode made as a photo's bytes arrive: the input taken in uneven pieces (single bytes among
    /// them, where a marker or a skip may be cut), previews asked for along the way, then finished.
    static func decodeAhead(_ data: Data) {
        let arriving = ArrivingJPEG(minimumHeight: 16, limits: limits)
        var end = 0
        var step = 1
        while end < data.count {
            end = min(data.count, end + step)
            _ = try? arriving.take(data.prefix(end), image: step % 2 == 1)
            step = step < 4_096 ? step * 3 : 1
        }
        _ = arriving.finish(data)
    }
}

#if FUZZING
/// libFuzzer's entry point: called on libFuzzer's thread once per input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    CodecFuzzer.run(UnsafeRawBufferPointer(start: start, count: count))
    return 0
}

/// libFuzzer's driver (FuzzerDriver.cpp); SwiftPM links an executable's `main` to its `@main`, so
/// the harness starts libFuzzer itself instead of using libFuzzer's own `main`.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// Hands the command line to libFuzzer, on the main thread.
@main
struct CodecFuzzerMain {
    static func main() {
        var argc = CommandLine.argc
        var argv = Optional(CommandLine.unsafeArgv)
        exit(runFuzzerDriver(&argc, &argv, fuzzOneInput))
    }
}
#else
/// Without libFuzzer: `--write-seeds DIR` writes the seed corpus; otherwise replays the files named
/// on the command line (a crash found by scripts/fuzz.sh, say).
@main
struct CodecFuzzerReplay {
    static func main() throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "--write-seeds", arguments.count == 2 {
            try SeedCorpus.write(to: URL(fileURLWithPath: arguments[1]))
            return
        }
        for path in arguments {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            data.withUnsafeBytes(CodecFuzzer.run)
            print("\(path): ok")
        }
    }
}
#endif
