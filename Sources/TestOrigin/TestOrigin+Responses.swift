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
        case .gated(let status, let bytes, let firstBytes, let gate, let headers):
            let split = min(max(0, firstBytes), bytes.count)
            guard waitUntilOpen(gate, .headers, on: socket),
                  socket.sendHead(status: status, headers: ["Content-Length": "\(bytes.count)"].merging(headers) { $1 }) else {
                return record(0, of: bytes.count, early: !isStopped)
            }
            var sent = 0
            for (step, part) in [(OriginGate.Step.firstBytes, bytes[..<split]), (.rest, bytes[split...])] {
                guard waitUntilOpen(gate, step, on: socket) else { break }
                let accepted = socket.send(part)
                sent += accepted
                if accepted < part.count { break }
            }
            return record(sent, of: bytes.count, early: sent < bytes.count && !isStopped)
        case .noContentLength(let bytes):
            guard socket.sendHead(status: 200, headers: [:]) else { return record(0, of: bytes.count, early: true) }
            let sent = socket.send(bytes[...])
            return record(sent, of: bytes.count, early: sent < bytes.count)
        }
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
