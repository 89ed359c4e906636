package dev.corral.testing;

import static org.junit.jupiter.api.Assertions.assertThrows;

import org.apache.ratis.util.ExitUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class TestingClusterTest {
  @AfterEach
  void forgetTheRecordedExit() {
    ExitUtils.clear();
  }

  @Test
  void aFatalRaftErrorInsideTheTestsJvmThrowsInsteadOfEndingIt() {
    try (TestingCluster cluster = new TestingCluster(1)) {
      assertThrows(ExitUtils.ExitException.class, () -> ExitUtils.terminate(1, "a member's fatal error (a test)",
          LoggerFactory.getLogger(TestingClusterTest.class)));
    }
  }
}
