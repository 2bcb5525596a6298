/// A command's one-line reason for failing; ArgumentParser prints it and exits non-zero.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
