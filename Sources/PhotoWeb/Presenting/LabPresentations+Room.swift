import Locking

/// A presented lab's room (issue 57), as a list presentation's (`Presentations+Room`): its first
/// `--room-size` followers (while they follow) are not new viewers of their address, and bring it
/// their pages' shared streams and connections.
extension LabPresentations {
    /// Whether `code` runs with fewer than `size` followers in its room; a 404 when it does not run.
    func roomIsOpen(_ code: FollowCode, size: Int) throws(APIError) -> Bool {
        let outcome = state.withLock { state -> Result<Bool, APIError> in
            guard let presentation = state.codes[code] else {
                return .failure(state.codes.gone(code))
            }
            return .success(presentation.followers.values.count(where: \.inRoom) < size)
        }
        return try outcome.get()
    }

    /// The followers `client` (a `ClientAddress.group`) has in presented labs' rooms now.
    func roomPlaces(of client: String) -> Int {
        state.withLock { state in
            state.codes.running.reduce(0) { sum, presentation in
                sum + presentation.followers.values.count { $0.inRoom && $0.client == client }
            }
        }
    }
}
