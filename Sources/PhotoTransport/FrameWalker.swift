import NIOCore

/// Walks the 9-byte frame headers of an HTTP/2 byte stream that arrives split across buffers,
/// skipping payloads (and the client's preface), so a guard can count frames by type without
/// parsing them. Used on one connection's event loop.
struct FrameWalker {
    static let headerLength = 9
    static let clientPrefaceLength = 24

    /// Bytes to pass before the next header: the preface, then each payload.
    private var skip: Int
    private var header: [UInt8] = []
    /// The first payload bytes asked for by `onFrame`, collected across buffers.
    private var wanted = 0
    private var collected: [UInt8] = []
    private var collectedType: UInt8 = 0

    init(skipping preface: Int) {
        skip = preface
    }

    /// Feeds `bytes`: `onFrame(type, length)` at each header returns how many of the payload's first
    /// bytes `onPayload(type, bytes)` should get.
    mutating func walk(_ bytes: ByteBufferView, onFrame: (UInt8, Int) -> Int, onPayload: (UInt8, [UInt8]) -> Void) {
        var view = bytes[...]
        while !view.isEmpty {
            if skip > 0 {
                let taken = min(skip, view.count)
                if wanted > collected.count {
                    collected.append(contentsOf: view.prefix(min(taken, wanted - collected.count)))
                    if collected.count == wanted {
                        onPayload(collectedType, collected)
                        (wanted, collected) = (0, [])
                    }
                }
                skip -= taken
                view = view.dropFirst(taken)
                continue
            }
            let needed = Self.headerLength - header.count
            header.append(contentsOf: view.prefix(needed))
            view = view.dropFirst(needed)
            guard header.count == Self.headerLength else { return }
            let length = Int(header[0]) << 16 | Int(header[1]) << 8 | Int(header[2])
            skip = length
            let keep = min(length, onFrame(header[3], length))
            if keep > 0 { (wanted, collectedType) = (keep, header[3]) }
            header.removeAll(keepingCapacity: true)
        }
    }
}
