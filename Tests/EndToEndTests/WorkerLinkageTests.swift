import Foundation
import TestSupport
import Testing

/// ADR 0021: the long-running workers load FoundationEssentials only. One `import
/// Foundation` in `Events` or a worker would bring back Foundation and ICU, about 8 MB of
/// every worker's memory, without any other test noticing.
@Suite struct WorkerLinkageTests {
  @Test(arguments: [
    "FanoutWorker", "PhotoWorker", "APNsWorker", "ImageServeWorker", "PruneWorker",
    "WebPushWorker", "FCMWorker", "NtfyWorker",
  ])
  func aWorkerLinksNeitherFoundationNorICU(worker: String) throws {
    let binary = TestServers.binDirectory.appendingPathComponent(worker).path
    let libraries = try runShell("ldd '\(binary)'")
    #expect(libraries.contains("libFoundationEssentials.so"), "\(libraries)")
    #expect(!libraries.contains("libFoundation.so"), "\(libraries)")
    #expect(!libraries.contains("ICU"), "\(libraries)")
  }
}
