import ServiceLifecycle
import UnixSignals
import PhotoWeb

/// Reads the TLS certificate and key again on each SIGHUP (the usual "read your files again"), one
/// at a time, until the group shuts down; a failed reload is logged and the certificate in use stays.
struct CertificateReloadService: Service {
    let web: WebApplication

    func run() async {
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        await cancelWhenGracefulShutdown {
            for await _ in hangups {
                try? await web.reloadCertificates()
            }
        }
    }
}
