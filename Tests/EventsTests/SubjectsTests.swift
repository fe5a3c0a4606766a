import Events
import Infrastructure
import Testing

@Suite struct SubjectsTests {
  @Test func deploymentSubjectsHaveNoPrefix() {
    let subjects = Subjects()
    #expect(subjects.alarm(mowerID: "m-1") == "notifications.alarms.m-1")
    #expect(subjects.alarmsWildcard == "notifications.alarms.*")
    #expect(subjects.alarmsStream == "MOWDECK_ALARMS")
    #expect(subjects.photoRequest(mowerID: "m-1") == "gateway.mower.m-1.photo")
  }

  @Test(arguments: ["t1a2b", "t1a2b."])
  func aTestPrefixIsJoinedWithOneDot(prefix: String) {
    let subjects = Subjects(prefix: prefix)
    #expect(subjects.alarm(mowerID: "m-1") == "t1a2b.notifications.alarms.m-1")
    #expect(subjects.alarmSubjectPrefix == "t1a2b.notifications.alarms.")
    #expect(subjects.wakePhotos == "t1a2b.mowdeck.wake.photos")
    #expect(subjects.alarmDecided == "t1a2b.mowdeck.fanout.decided")
    #expect(subjects.alarmsStream == "MOWDECK_ALARMS_T1A2B")
  }

  @Test func streamNamesStayValidForDottedPrefixes() {
    let stream = Subjects(prefix: "a.b-c").alarmsStream
    #expect(stream == "MOWDECK_ALARMS_A_B_C")
    #expect(stream.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" })
  }
}
