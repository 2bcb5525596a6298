// SwiftNIO alone serving fixed bytes: the ceiling our server's ready answers could reach on this stack.
//
//   nio-ceiling --mode h1       --port P --root DIR                       HTTP/1.1, NIOHTTP1's codec
//   nio-ceiling --mode h2       --port P --root DIR --cert C --key K      TLS + HTTP/2, a child channel per stream
//   nio-ceiling --mode h2frames --port P --root DIR --cert C --key K      TLS + HTTP/2, answered from the frames
//   (add --gzip to answer every path that has a NAME.gz beside it with that copy, `Content-Encoding: gzip`)
//
// Every file of DIR is read once at start and answered by path ("/NAME") with 200, its length and a
// type from its extension; anything else 404. No guards, no limits, no logging: what the stack costs.
import Foundation
import NIOCore
import NIOHTTP1
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL

/// One file's answer, made once.
struct Answer {
    let type: String
    let body: ByteBuffer
    let gzipped: Bool
}

/// What the server answers, by path.
struct Answers {
    let byPath: [String: Answer]

    init(root: String, gzip: Bool) throws {
        var byPath: [String: Answer] = [:]
        let names = try FileManager.default.contentsOfDirectory(atPath: root)
        for name in names where !name.hasSuffix(".gz") {
            let gzipped = gzip && names.contains(name + ".gz")
            let data = try Data(contentsOf: URL(fileURLWithPath: root).appendingPathComponent(gzipped ? name + ".gz" : name))
            let type = switch (name as NSString).pathExtension {
            case "jpg": "image/jpeg"
            case "html": "text/html; charset=utf-8"
            case "json": "application/json"
            default: "application/octet-stream"
            }
            byPath["/" + name] = Answer(type: type, body: ByteBuffer(bytes: data), gzipped: gzipped)
        }
        self.byPath = byPath
    }
}

/// HTTP/1.1 (and HTTP/2 streams through `HTTP2FramePayloadToHTTP1ServerCodec`): the answer on the request's end.
final class HTTP1Answerer: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let answers: Answers
    private var path = ""

    init(answers: Answers) { self.answers = answers }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            path = head.uri
        case .body:
            break
        case .end:
            var headers = HTTPHeaders()
            let answer = answers.byPath[path]
            headers.add(name: "content-type", value: answer?.type ?? "text/plain")
            headers.add(name: "content-length", value: String(answer?.body.readableBytes ?? 0))
            if answer?.gzipped == true { headers.add(name: "content-encoding", value: "gzip") }
            let head = HTTPResponseHead(version: .http1_1, status: answer == nil ? .notFound : .ok, headers: headers)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            if let answer { context.write(wrapOutboundOut(.body(.byteBuffer(answer.body))), promise: nil) }
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}

/// HTTP/2 with no child channels: a stream's request is answered from the connection's frames, the
/// moment its last frame arrives (HEADERS or DATA with END_STREAM).
final class FrameAnswerer: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private let answers: Answers
    private var paths: [HTTP2StreamID: String] = [:]

    init(answers: Answers) { self.answers = answers }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.payload {
        case .headers(let headers):
            let path = headers.headers.first(name: ":path") ?? ""
            if headers.endStream { answer(path, on: frame.streamID, context: context) } else { paths[frame.streamID] = path }
        case .data(let data) where data.endStream:
            if let path = paths.removeValue(forKey: frame.streamID) { answer(path, on: frame.streamID, context: context) }
        default:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
    }

    private func answer(_ path: String, on stream: HTTP2StreamID, context: ChannelHandlerContext) {
        let answer = answers.byPath[path]
        var headers = HPACKHeaders([
            (":status", answer == nil ? "404" : "200"),
            ("content-type", answer?.type ?? "text/plain"),
            ("content-length", String(answer?.body.readableBytes ?? 0)),
        ])
        if answer?.gzipped == true { headers.add(name: "content-encoding", value: "gzip") }
        context.write(wrapOutboundOut(HTTP2Frame(streamID: stream, payload: .headers(.init(headers: headers, endStream: answer == nil)))), promise: nil)
        if let answer {
            context.write(wrapOutboundOut(HTTP2Frame(streamID: stream, payload: .data(.init(data: .byteBuffer(answer.body), endStream: true)))), promise: nil)
        }
    }
}

func argument(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

guard let mode = argument("--mode"), let port = argument("--port").flatMap(Int.init), let root = argument("--root") else {
    FileHandle.standardError.write(Data("usage: nio-ceiling --mode h1|h2|h2frames --port P --root DIR [--cert C --key K] [--gzip]\n".utf8))
    exit(64)
}
let answers = try Answers(root: root, gzip: CommandLine.arguments.contains("--gzip"))
let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)

func makeTLS() throws -> NIOSSLContext? {
    guard mode != "h1" else { return nil }
    guard let cert = argument("--cert"), let key = argument("--key") else { fatalError("--cert and --key for \(mode)") }
    var configuration = TLSConfiguration.makeServerConfiguration(
        certificateChain: try NIOSSLCertificate.fromPEMFile(cert).map { .certificate($0) },
        privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
    configuration.applicationProtocols = ["h2"]
    return try NIOSSLContext(configuration: configuration)
}
let tls = try makeTLS()

let bootstrap = ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 1024)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
            let sync = channel.pipeline.syncOperations
            if let tls { try sync.addHandler(NIOSSLServerHandler(context: tls)) }
            switch mode {
            case "h1":
                try sync.configureHTTPServerPipeline(withErrorHandling: false)
                try sync.addHandler(HTTP1Answerer(answers: answers))
            case "h2":
                _ = try sync.configureHTTP2Pipeline(
                    mode: .server, connectionConfiguration: .init(), streamConfiguration: .init()
                ) { stream in
                    stream.eventLoop.makeCompletedFuture {
                        try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                        try stream.pipeline.syncOperations.addHandler(HTTP1Answerer(answers: answers))
                    }
                }
            case "h2frames":
                try sync.addHandler(NIOHTTP2Handler(mode: .server))
                try sync.addHandler(FrameAnswerer(answers: answers))
            default:
                fatalError("unknown mode \(mode)")
            }
        }
    }

let channel = try bootstrap.bind(host: "127.0.0.1", port: port).wait()
print("nio-ceiling \(mode) on 127.0.0.1:\(port), \(answers.byPath.count) files")
try channel.closeFuture.wait()
