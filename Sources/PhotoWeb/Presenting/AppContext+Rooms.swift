/// The rooms of the list's and the labs' presentations, as the limits per address see them.
extension AppContext {
    /// The followers `client` (a `ClientAddress.group`) has in presentations' rooms now: each brings
    /// its address a shared stream beyond `--shared-streams-per-client`.
    func roomPlaces(of client: String) -> Int {
        presentations.roomPlaces(of: client) + labs.presentations.roomPlaces(of: client)
    }
}
