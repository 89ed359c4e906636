package dev.corral.recipes.lock;

/**
 * Told that another process asked, with {@link Revoker#attemptRevoke}, that a
 * lock held here be given up, as Curator's {@code RevocationListener}. Giving
 * it up is the holder's choice: revocation is cooperative, and nothing is
 * released for it. The holding thread releases as usual.
 *
 * @param <T> the lock
 */
@FunctionalInterface
public interface RevocationListener<T> {
  void revocationRequested(T forLock);
}
