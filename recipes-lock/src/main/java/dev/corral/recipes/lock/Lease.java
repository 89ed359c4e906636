package dev.corral.recipes.lock;

import dev.corral.client.CoordinationException;

/**
 * One lease of an {@link InterProcessSemaphoreV2}: an ephemeral node under the
 * semaphore's leases path, held until returned (or until its session ends).
 * Closing returns it, so a lease fits try-with-resources; closing twice is harmless.
 */
public interface Lease extends AutoCloseable {

  /**
   * Returns the lease to its semaphore (same as
   * {@link InterProcessSemaphoreV2#returnLease}): its node is deleted; if the
   * server cannot be reached, the failure is thrown and the node is deleted in
   * the background.
   */
  @Override
  void close() throws CoordinationException, InterruptedException;

  /** The data of the lease's node (as set by {@link InterProcessSemaphoreV2#setNodeData}). */
  byte[] getData() throws CoordinationException, InterruptedException;

  /**
   * The name of the lease's node (not its path), as Curator's: one of
   * {@link InterProcessSemaphoreV2#getParticipantNodes}.
   */
  String getNodeName();
}
