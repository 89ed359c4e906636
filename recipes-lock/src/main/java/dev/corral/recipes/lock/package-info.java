/**
 * Lock recipes over a {@link dev.corral.client.CoordinationClient}, with
 * Curator's names and shapes: {@link dev.corral.recipes.lock.InterProcessMutex},
 * {@link dev.corral.recipes.lock.InterProcessSemaphoreMutex},
 * {@link dev.corral.recipes.lock.InterProcessReadWriteLock},
 * {@link dev.corral.recipes.lock.InterProcessSemaphoreV2}, and cooperative
 * revocation ({@link dev.corral.recipes.lock.Revoker}).
 *
 * <p>Beyond Curator: every lock has a fencing token
 * ({@link dev.corral.recipes.lock.InterProcessLock#fencingToken()}) and reports
 * SUSPENDED and LOST ({@link dev.corral.recipes.lock.LockState}); a node left by
 * an earlier session is never taken as one's own; a failed or timed-out
 * acquire always removes its node, even when the create's reply was lost; a
 * release counts in {@code state()} only once the server confirmed it (the
 * releasing thread holds the lock no more as soon as it calls release(), and
 * {@code isAcquiredInThisProcess()} says so, as Curator's); a waiter whose session
 * ended is never granted on its old node (it queues again in the new session).
 */
package dev.corral.recipes.lock;
