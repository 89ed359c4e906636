package dev.corral.client.grpc;

import dev.corral.client.Code;
import dev.corral.client.CoordinationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** The one rule deciding whether a failed attempt is retried. Pure. */
final class RetryDecision {
  private RetryDecision() {}

  /** Retry only when the failure is retryable and the operation is safe to repeat (or protected). */
  static boolean shouldRetry(Code code, Idempotence idempotence) {
    return code.isRetryable() && idempotence != Idempotence.ONCE;
  }

  /** {@link #shouldRetry(Code, Idempotence)} for a failure as futures report it. */
  static boolean shouldRetry(Throwable failure, Idempotence idempotence) {
    Code code = codeOf(failure);
    return code != null && shouldRetry(code, idempotence);
  }

  /** The code of a (possibly wrapped) {@link CoordinationException}; null for any other failure. */
  static Code codeOf(Throwable failure) {
    Throwable t = failure;
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    return t instanceof CoordinationException e ? e.code() : null;
  }
}
