import PhotoWeb

extension ServerConfiguration {
    /// The line `serve` prints once listening on `port`: the page's address and the strategy.
    public func listeningLine(port: UInt16) -> String {
        let scheme = web.tls == nil ? "http" : "https"
        return "ClassicPhotos Live on \(scheme)://\(web.host):\(port)\(web.basePath)/ (strategy \(web.strategy.name))"
    }
}
