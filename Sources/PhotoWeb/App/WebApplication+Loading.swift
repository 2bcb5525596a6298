import HTTPTransfer
public import PhotoPipeline

extension WebApplication {
    /// The photo list is loaded: its viewers get controllers on `pipeline`.
    public func listLoaded(_ pipeline: PhotoPipeline) {
        finishLoading(.ready(pipeline))
        // Followers drive nothing: theirs come at their first report of their own.
        let followers = context.presentations.presenterOfFollowers()
        for session in context.viewers.all(in: context.list) where followers[session.id] == nil {
            _ = session.controller(on: pipeline, strategy: configuration.strategy)
        }
        requireSnapshots()
    }

    /// The photo list could not be loaded, for `reason` (shown to every visitor: any URL's
    /// credentials in it are hidden here, whatever error it came from).
    public func listFailed(_ reason: String) {
        finishLoading(.failed(URLCredentials.redacted(reason)))
        requireSnapshots()
    }

    /// The list's status, with the files the built-in origin left out of it.
    private func finishLoading(_ status: PhotoLibrary.Status) {
        context.library.finish(with: status, skipped: context.origin.skipped)
    }

    /// Every open stream learns the outcome: a fresh snapshot carries the list or the error.
    private func requireSnapshots() {
        for session in context.viewers.all(in: context.list) {
            session.outbox.requireSnapshot()
        }
    }
}
