package dev.corral.client.grpc;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.client.Code;
import dev.corral.client.ConnectionLossException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class RetryDecisionTest {
  @Test
  void onlyRetryableFailuresOfRepeatableOrProtectedOperationsAreRetried() {
    for (Code code : Code.values()) {
      assertFalse(RetryDecision.shouldRetry(code, Idempotence.ONCE), code.name());
      assertTrue(RetryDecision.shouldRetry(code, Idempotence.REPEATABLE) == code.isRetryable(), code.name());
      assertTrue(RetryDecision.shouldRetry(code, Idempotence.PROTECTED) == code.isRetryable(), code.name());
    }
  }

  @Test
  void wrappedFailuresAreSeenThroughAndOthersAreNotRetried() {
    assertTrue(RetryDecision.shouldRetry(
        new CompletionException(new ConnectionLossException("lost", null)), Idempotence.REPEATABLE));
    assertFalse(RetryDecision.shouldRetry(new IllegalStateException("bug"), Idempotence.REPEATABLE));
  }
}
