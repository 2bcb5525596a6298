import PhotoTransport

extension ClientPlaces {
    /// The 429 for a client that holds its share.
    func refusal(_ client: String) -> APIError {
        .tooManyRequests(
            "\(client) holds \(perClient) \(kind), a client's most (a fair share of the server's); close one first",
            retryAfter: 10)
    }
}
