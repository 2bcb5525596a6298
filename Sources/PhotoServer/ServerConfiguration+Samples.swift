import SampleOrigin

extension ServerConfiguration {
    /// Makes every sample photo of `sample` on disk now, on Dispatch threads; says what it made.
    public func makeSamples() async throws -> String {
        let made = try await SampleOrigin.makeAll(sample)
        return "made \(made) sample photos in \(sample.directory) (\(sample.photoCount) listed)"
    }
}
