import Glibc

extension TestOrigin {
    /// Sends the response `behaviour` scripts for a request for `path` with `headers`, and says how it went.
    func respond(_ behaviour: Behaviour, to path: String, headers: [String: String], on socket: Socket) -> Served {
        func record(_ sent: Int, of length: Int, early: Bool, status: Int = 200) -> Served {
            Served(path: path, bytesSent: sent, bodyLength: length, clientClosedEarly: early, status: status)
        }

        switch behaviour {
        case .body(let status, let contentType, let bytes, let headers):
            let head = ["Content-Type": contentType, "Content-Length": "\(bytes.count)"].merging(headers) { $1 }
            guard socket.sendHead(status: status, headers: head) else { return record(0, of: bytes.count, early: true, status: status) }
            let sent = socket.send(bytes[...])
            return record(sent, of: bytes.count, early: sent < bytes.count, status: status)
        case .stall(let status, let declaredLength, let sendFirst):
            guard socket.sendHead(status: status, headers: ["Content-Length": "\(declaredLength)"]) else {
                return record(0, of: declaredLength, early: true, status: status)
            }
            let sent = socket.send(Array(repeating: UInt8(ascii: "x"), count: min(sendFirst, declaredLength))[...])
            let clientClosed = socket.waitForClose(timeout: nil) && !isStopped
            return record(sent, of: declaredLength, early: clientClosed, status: status)
        case .drip(let declaredLength, let interval):
            guard socket.sendHead(status: 200, headers: ["Content-Length": "\(declaredLength)"]) else {
                return record(0, of: declaredLength, early: true)
            }
            var sent = 0
            while sent < declaredLength, !isStopped, socket.send([UInt8(ascii: "x")]) == 1 {
                sent += 1
                if socket.waitForClose(timeout: interval) { return record(sent, of: declaredLength, early: true) }
            }
            return record(sent, of: declaredLength, early: sent < declaredLength && !isStopped)
        case .redirect(let status, let location):
            let sentHead = socket.sendHead(status: status, headers: ["Location": location, "Content-Length": "0"])
            return record(0, of: 0, early: !sentHead, status: status)
        case .truncated(let bytes, let declaredLength):
            guard socket.sendHead(status: 200, headers: ["Content-Length": "\(declaredLength)"]) else {
                return record(0, of: declaredLength, early: true)
            }
            let sent = socket.send(bytes[...])
            return record(sent, of: declaredLength, early: sent < bytes.count)
        case .gated(let status, let bytes, let firstBytes, let gate, let headers):
            let sent = sendHeld(status: status, headers: headers, body: bytes[...], holdAt: firstBytes, gate: gate, on: socket)
            return record(sent ?? 0, of: bytes.count, early: (sent ?? 0) < bytes.count && !isStopped, status: status)
        case .noContentLength(let bytes):
            guard socket.sendHead(status: 200, headers: [:]) else { return record(0, of: bytes.count, early: true) }
            let sent = socket.send(bytes[...])
            return record(sent, of: bytes.count, early: sent < bytes.count)
        case .resource(let bytes, let etag, let lastModified, let ranges, let gate, let holdAt):
            var head = ["Accept-Ranges": "bytes"]
            head["ETag"] = etag
            head["Last-Modified"] = lastModified
            let answer = Self.range(headers, of: bytes.count, versions: [etag, lastModified].compactMap { $0 }, ranges)
            guard answer.status != 416 else {
                let sentHead = socket.sendHead(
                    status: 416, headers: head.merging(["Content-Range": "bytes */\(bytes.count)", "Content-Length": "0"]) { $1 })
                return record(0, of: 0, early: !sentHead, status: 416)
            }
            let body = bytes[answer.start...]
            if answer.status == 206 {
                head["Content-Range"] = "bytes \(answer.start)-\(bytes.count - 1)/\(bytes.count)"
            }
            let sent: Int?
            if let gate {
                sent = sendHeld(status: answer.status, headers: head, body: body, holdAt: holdAt, gate: gate, on: socket)
            } else {
                head["Content-Length"] = "\(body.count)"
                sent = socket.sendHead(status: answer.status, headers: head) ? socket.send(body) : nil
            }
            return record(sent ?? 0, of: body.count, early: (sent ?? 0) < body.count && !isStopped, status: answer.status)
        }
    }

    /// The status and first byte of the answer to a request with `headers` for a file of `length`
    /// bytes whose current version is named by `versions` (its ETag, its Last-Modified): what nginx
    /// does with `Range: bytes=N-` and `If-Range`, unless `ranges` scripts otherwise.
    private static func range(
        _ headers: [String: String], of length: Int, versions: [String], _ ranges: RangeHandling
    ) -> (status: Int, start: Int) {
        guard ranges != .ignored, let range = headers["range"], range.hasPrefix("bytes="), range.hasSuffix("-"),
              let start = Int(range.dropFirst("bytes=".count).dropLast()), start >= 0 else { return (200, 0) }
        if ranges == .fromStart { return (206, 0) }
        if ranges == .honoured, let ifRange = headers["if-range"], !versions.contains(ifRange) { return (200, 0) }
        return start < length ? (206, start) : (416, 0)
    }

    /// Sends the head once `gate` lets `.headers` go (with `body`'s length), then `body`: the part
    /// before `holdAt` (counted in the whole file, which ends where `body` ends) once `.firstBytes`
    /// is open, the rest once `.rest` is. Returns the body bytes sent, or nil when the head was not.
    private func sendHeld(
        status: Int, headers: [String: String], body: ArraySlice<UInt8>, holdAt: Int, gate: OriginGate, on socket: Socket
    ) -> Int? {
        guard waitUntilOpen(gate, .headers, on: socket),
              socket.sendHead(status: status, headers: ["Content-Length": "\(body.count)"].merging(headers) { $1 }) else {
            return nil
        }
        let split = min(max(body.startIndex, holdAt), body.endIndex)
        var sent = 0
        for (step, part) in [(OriginGate.Step.firstBytes, body[..<split]), (.rest, body[split...])] where !part.isEmpty {
            guard waitUntilOpen(gate, step, on: socket) else { break }
            let accepted = socket.send(part)
            sent += accepted
            if accepted < part.count { break }
        }
        return sent
    }

    /// Waits until `gate` lets `step` go; false when the client went away or the origin stopped first.
    private func waitUntilOpen(_ gate: OriginGate, _ step: OriginGate.Step, on socket: Socket) -> Bool {
        // A short poll on the socket: it notices a client that leaves while the gate is shut.
        while !gate.isOpen(step) {
            if isStopped || socket.waitForClose(timeout: .milliseconds(5)) { return false }
        }
        return true
    }
}
