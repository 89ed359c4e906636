package dev.corral.client.grpc;

import io.github.resilience4j.retry.Retry;
import dev.corral.client.CoordinationException;
import java.util.EnumMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs attempts of an operation under the {@link RetryPolicy}, with resilience4j
 * scheduling the backoff; {@link RetryDecision} alone decides what is retried.
 */
final class Retrier {
  private static final Logger log = LoggerFactory.getLogger(Retrier.class);

  private final RetryPolicy policy;
  private final ScheduledExecutorService scheduler;
  private final Map<Idempotence, Retry> retries = new EnumMap<>(Idempotence.class);
  private final Set<CompletableFuture<?>> outstanding = ConcurrentHashMap.newKeySet();

  Retrier(RetryPolicy policy, ScheduledExecutorService scheduler) {
    this.policy = policy;
    this.scheduler = scheduler;
    for (Idempotence idempotence : Idempotence.values()) {
      Retry retry = Retry.of("corral-" + idempotence.name().toLowerCase(), policy.toRetryConfig()
          .retryOnException(failure -> RetryDecision.shouldRetry(failure, idempotence))
          .build());
      retry.getEventPublisher().onRetry(event -> log.debug("Retrying a {} operation (attempt {}) in {} after: {}",
          idempotence, event.getNumberOfRetryAttempts() + 1, event.getWaitInterval(),
          String.valueOf(event.getLastThrowable())));
      retries.put(idempotence, retry);
    }
  }

  /**
   * Runs {@code attempt} (given the attempt number, from 1) until it succeeds, fails
   * in a way that must not be retried, or the policy's attempts are used up. The
   * first attempt runs on the calling thread, so calls keep their order.
   */
  <T> CompletableFuture<T> run(Idempotence idempotence, IntFunction<CompletableFuture<T>> attempt) {
    if (idempotence == Idempotence.ONCE || policy.maxAttempts() == 1) {
      return attempt.apply(1);
    }
    AtomicInteger attempts = new AtomicInteger();
    CompletionStage<T> result = Retry.decorateCompletionStage(retries.get(idempotence), scheduler,
        () -> attempt.apply(attempts.incrementAndGet())).get();
    CompletableFuture<T> future = result.toCompletableFuture();
    outstanding.add(future);
    future.whenComplete((value, failure) -> outstanding.remove(future));
    return future;
  }

  /** Fails every call still between attempts (the client closed: their next attempt will never run). */
  void abandonAll(CoordinationException failure) {
    for (CompletableFuture<?> future : List.copyOf(outstanding)) {
      future.completeExceptionally(failure);
    }
  }
}
