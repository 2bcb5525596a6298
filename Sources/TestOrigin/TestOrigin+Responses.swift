import Glibc

extension TestOrigin {
    /// Sends the response `behaviour` scripts for a request for `path`, and says how it went.
    func respond(_ behaviour: Behaviour, to path: String, on socket: Socket) -> Served {
        func record(_ sent: Int, of length: Int, early: Bool) -> Served {
            Served(path: path, bytesSent: sent, bodyLength: length, clientClosedEarly: early)
        }

        switch behaviour {
        case .body(let status, let contentType, let bytes, let headers):
            let head = ["Content-Type": contentType, "Content-Length": "\(bytes.count)"].merging(headers) { $1 }
            guard socket.sendHead(status: status, headers: head) else { return record(0, of: bytes.count, early: true) }
            let sent = socket.send(bytes[...])
            return record(sent, of: bytes.count, early: sent < bytes.count)
        case .slowBody(let status, let bytes, let chunkSize, let delay):
            guard socket.sendHead(status: status, headers: ["Content-Length": "\(bytes.count)"]) else {
                return record(0, of: bytes.count, early: true)
            }
            let step = max(1, chunkSize)
            var sent = 0
            for start in stride(from: 0, to: bytes.count, by: step) {
                if start > 0, socket.waitForClose(timeout: delay) { break }
                let chunk = bytes[start..<min(start + step, bytes.count)]
                let accepted = socket.send(chunk)
                sent += accepted
                if accepted < chunk.count { break }
            }
            return record(sent, of: bytes.count, early: sent < bytes.count && !isStopped)
        case .stall(let status, let declaredLength, let sendFirst):
            guard socket.sendHead(status: status, headers: ["Content-Length": "\(declaredLength)"]) else {
                return record(0, of: declaredLength, early: true)
            }
            let sent = socket.send(Array(repeating: UInt8(ascii: "x"), count: min(sendFirst, declaredLength))[...])
            let clientClosed = socket.waitForClose(timeout: nil) && !isStopped
            return record(sent, of: declaredLength, early: clientClosed)
        case .redirect(let status, let location):
            let sentHead = socket.sendHead(status: status, headers: ["Location": location, "Content-Length": "0"])
            return record(0, of: 0, early: !sentHead)
        case .truncated(let bytes, let declaredLength):
            guard socket.sendHead(status: 200, headers: ["Content-Length": "\(declaredLength)"]) else {
                return record(0, of: declaredLength, early: true)
            }
            let sent = socket.send(bytes[...])
            return record(sent, of: declaredLength, early: sent < bytes.count)
        case .noContentLength(let bytes):
            guard socket.sendHead(status: 200, headers: [:]) else { return record(0, of: bytes.count, early: true) }
            let sent = socket.send(bytes[...])
            return record(sent, of: bytes.count, early: sent < bytes.count)
        }
    }
}
