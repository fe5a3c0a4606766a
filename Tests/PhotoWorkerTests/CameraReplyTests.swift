import Testing

@testable import PhotoWorker
