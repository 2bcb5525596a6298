public import HTTPTransfer
import PhotoPipeline

extension ServerConfiguration {
    /// The transfer limits the list's downloads run with: the operator's, with the origin they
    /// named by starting it (the built-in sample origin or `--photos-dir`, at `namedOrigin`) or by
    /// `--source` (a URL's host and port) allowed beside `--allow-source-host`. Every other
    /// loopback, private or link-local address stays refused, redirects included.
    package func transferLimits(namedOrigin: String?) -> TransferLimits {
        var limits = pipeline.transferLimits
        for url in [namedOrigin, source].compactMap({ $0 }) {
            if let entry = AllowedSources.Entry(origin: url) {
                limits.allowedSources = limits.allowedSources.allowing(entry)
            }
        }
        return limits
    }
}
