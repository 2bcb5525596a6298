// Measures the CPU cost of the sepia thumbnail path against the cost of what it cannot avoid:
// decoding at the same DCT scale and encoding an image of the thumbnail's size.
import Foundation
import Glibc
import PhotoCodecs

let iterations = 30
let thumbnailHeight = 160

/// CPU time of the whole process; the work is single-threaded, so this is the work's own cost.
func cpuSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// Collects per-iteration timings of several jobs interleaved, so drift affects them alike.
struct Timings {
    private(set) var samples: [String: [Double]] = [:]

    mutating func measure(_ name: String, _ body: () throws -> Void) rethrows {
        let start = cpuSeconds()
        try body()
        samples[name, default: []].append(cpuSeconds() - start)
    }

    func medianMilliseconds(_ name: String) -> Double {
        let sorted = samples[name, default: []].sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2] * 1000
    }
}

struct Input {
    var name: String
    var data: Data
}

func makeInputs() throws -> [Input] {
    var inputs: [Input] = []
    for seed in 1...3 {
        inputs.append(Input(name: "photo\(seed).jpg", data: try JPEGEncoder.encode(SamplePhoto.make(seed: seed), quality: 85)))
    }
    inputs.append(Input(name: "photo4.png", data: try PNGEncoder.encode(SamplePhoto.make(seed: 4))))
    inputs.append(Input(name: "photo5-alpha.png", data: try PNGEncoder.encode(SamplePhoto.make(seed: 5, alpha: true))))
    return inputs
}

/// The floor: the decode the thumbnail path does (same DCT scale) plus encoding an image of the thumbnail's size.
func floorJob(for input: Input, renderer: SepiaRenderer) throws -> () throws -> Void {
    let format = ImageFormat(sniffing: input.data)
    let decoded = try ImageDecoder.decode(input.data, minimumHeight: thumbnailHeight, limits: renderer.limits)
    let sameSize = Resampler.scaled(decoded, toHeight: thumbnailHeight)
    return {
        if format == .jpeg {
            _ = try JPEGDecoder.decode(input.data, minimumHeight: thumbnailHeight, limits: renderer.limits)
        } else {
            _ = try PNGDecoder.decode(input.data, limits: renderer.limits)
        }
        _ = sameSize.hasAlpha ? try PNGEncoder.encode(sameSize) : try JPEGEncoder.encode(sameSize, quality: renderer.jpegQuality)
    }
}

func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
}

let renderer = SepiaRenderer()

// `ThumbnailBenchmark --throughput SECONDS FILE...`: the thumbnail path on each file in turn, round robin,
// for about SECONDS of CPU; prints one line per file, `<path> <runs> <cpu seconds>` (Benchmarks/thumbnails.py
// turns this into photos per second per core beside libvips and Pillow).
if CommandLine.arguments.count > 2, CommandLine.arguments[1] == "--throughput", let budget = Double(CommandLine.arguments[2]) {
    let files = CommandLine.arguments.dropFirst(3).map { ($0, try! Data(contentsOf: URL(fileURLWithPath: $0))) }
    var runs = [Int](repeating: 0, count: files.count)
    var spent = [Double](repeating: 0, count: files.count)
    for (_, data) in files { _ = try renderer.thumbnail(of: data, height: thumbnailHeight) }  // warm up
    while spent.reduce(0, +) < budget {
        for (i, (_, data)) in files.enumerated() {
            let start = cpuSeconds()
            _ = try renderer.thumbnail(of: data, height: thumbnailHeight)
            spent[i] += cpuSeconds() - start
            runs[i] += 1
        }
    }
    for (i, (path, _)) in files.enumerated() { print("\(path) \(runs[i]) \(spent[i])") }
    exit(0)
}

let inputs = try makeInputs()
print("ThumbnailBenchmark: \(iterations) iterations per job, median CPU time (CLOCK_PROCESS_CPUTIME_ID), "
    + "\(thumbnailHeight) px thumbnails of 1600x1067 SamplePhoto images")
let columns = ["input", "KiB", "decode", "thumb", "thumb ms", "full ms", "floor ms", "thumb/floor", "full/thumb"]
let widths = [18, 6, 12, 10, 9, 8, 9, 12, 11]
print(zip(columns, widths).map { pad($0, $1) }.joined(separator: " "))
var totals: [String: (thumbnail: Double, fullSize: Double, floor: Double)] = [:]
/// Summed medians of the sepia thumbnail alone and of preview + sepia from one decode (`thumbnails(of:)`).
var rowImages = (sepia: 0.0, both: 0.0)
for input in inputs {
    let floor = try floorJob(for: input, renderer: renderer)
    var timings = Timings()
    var thumbnail = try renderer.thumbnail(of: input.data, height: thumbnailHeight)
    _ = try renderer.fullSize(of: input.data)
    try floor()
    for _ in 0..<iterations {
        try timings.measure("thumbnail") { thumbnail = try renderer.thumbnail(of: input.data, height: thumbnailHeight) }
        try timings.measure("fullSize") { _ = try renderer.fullSize(of: input.data) }
        try timings.measure("floor") { try floor() }
        try timings.measure("both") { _ = try renderer.thumbnails(of: input.data, height: thumbnailHeight) }
    }
    // PNG has no reduced-scale decode: it always decodes in full.
    let decodeSize = ImageFormat(sniffing: input.data) == .jpeg
        ? try JPEGDecoder.outputSize(of: input.data, minimumHeight: thumbnailHeight) : nil
    rowImages = (rowImages.sepia + timings.medianMilliseconds("thumbnail"), rowImages.both + timings.medianMilliseconds("both"))
    let (thumb, full, floorTime) = (timings.medianMilliseconds("thumbnail"), timings.medianMilliseconds("fullSize"),
                                    timings.medianMilliseconds("floor"))
    for group in [decodeSize == nil ? "all PNG (sum)" : "all JPEG (sum)", "all (sum)"] {
        let sum = totals[group, default: (0, 0, 0)]
        totals[group] = (sum.thumbnail + thumb, sum.fullSize + full, sum.floor + floorTime)
    }
    let row = [
        input.name, String(input.data.count / 1024),
        decodeSize.map { "\($0.scaleNumerator)/8 \($0.height)" } ?? "full", "\(thumbnail.width)x\(thumbnail.height)",
        String(format: "%.2f", thumb), String(format: "%.2f", full), String(format: "%.2f", floorTime),
        String(format: "%.2f", thumb / floorTime), String(format: "%.2f", full / thumb),
    ]
    print(zip(row, widths).map { pad($0, $1) }.joined(separator: " "))
}
for group in ["all JPEG (sum)", "all PNG (sum)", "all (sum)"] {
    guard let sum = totals[group] else { continue }
    let row = [
        group, "", "", "",
        String(format: "%.2f", sum.thumbnail), String(format: "%.2f", sum.fullSize), String(format: "%.2f", sum.floor),
        String(format: "%.2f", sum.thumbnail / sum.floor), String(format: "%.2f", sum.fullSize / sum.thumbnail),
    ]
    print(zip(row, widths).map { pad($0, $1) }.joined(separator: " "))
}
print(String(format: "row images (all, sum of medians): sepia thumbnail %.2f ms, preview + sepia from one decode %.2f ms, ratio %.2f",
             rowImages.sepia, rowImages.both, rowImages.both / rowImages.sepia))
print("targets: thumb/floor <= 1.3, full/thumb >= 3")
