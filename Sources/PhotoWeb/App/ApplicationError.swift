/// Why the server could not start.
public enum ApplicationError: Error, Sendable, CustomStringConvertible {
    case templates(String, String)
    case cannotListen(String, String)
    case setting(String)
    case database(String)

    public var description: String {
        switch self {
        case .templates(let directory, let reason): "cannot load templates from \(directory): \(reason)"
        case .cannotListen(let address, let reason): "cannot listen on \(address): \(reason)"
        case .setting(let reason): reason
        case .database(let reason): reason
        }
    }
}
