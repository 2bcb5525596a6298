import ArgumentParser
import Foundation
import PhotoCodecs

/// `classic-photos sepia INPUT OUTPUT`: the pipeline's decode / sepia / encode path on one local file.
struct SepiaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sepia",
        abstract: "Give one JPEG or PNG file a sepia tone, as the pipeline does for each photo.",
        discussion: """
            Without --height the output is full size; with it, a thumbnail of that height decoded at \
            reduced scale. The output is JPEG, or PNG when the source has alpha or OUTPUT ends in .png.
            """
    )

    @Argument(help: "The JPEG or PNG file to read.")
    var input: String

    @Argument(help: "Where to write the result (.jpg / .jpeg or .png).")
    var output: String

    @Option(help: "Thumbnail height in pixels (omit for full size).")
    var height: Int?

    @Option(help: "Sepia intensity from 0 (unchanged) to 1 (full sepia).")
    var intensity: Double = 0.8

    func validate() throws {
        if let height, !(1...10_000).contains(height) {
            throw ValidationError("--height must be between 1 and 10000, got \(height)")
        }
        guard (0...1).contains(intensity) else {
            throw ValidationError("--intensity must be between 0 and 1, got \(intensity)")
        }
        guard OutputFormat(path: output) != nil else {
            throw ValidationError("OUTPUT must end in .jpg, .jpeg or .png: \(output)")
        }
    }

    func run() throws {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: input))
        } catch {
            throw CommandFailure("cannot read \(input): \((error as NSError).localizedFailureReason ?? error.localizedDescription)")
        }
        let renderer = SepiaRenderer(intensity: intensity)
        let format: ImageFormat = OutputFormat(path: output) == .png ? .png : .jpeg
        do {
            let image = try height.map { try renderer.thumbnail(of: data, height: $0, format: format) }
                ?? renderer.fullSize(of: data, format: format)
            try image.data.write(to: URL(fileURLWithPath: output), options: .atomic)
            print("\(output): \(image.width)x\(image.height) \(image.format.rawValue.uppercased()), \(image.data.count) bytes")
        } catch let error as ImageCodecError {
            throw CommandFailure("\(input): \(error) [\(error.detail)]")
        } catch {
            throw CommandFailure("cannot write \(output): \((error as NSError).localizedFailureReason ?? error.localizedDescription)")
        }
    }

    private enum OutputFormat {
        case jpeg, png

        init?(path: String) {
            switch URL(fileURLWithPath: path).pathExtension.lowercased() {
            case "jpg", "jpeg": self = .jpeg
            case "png": self = .png
            default: return nil
            }
        }
    }
}
