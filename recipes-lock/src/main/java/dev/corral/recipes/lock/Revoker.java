package dev.corral.recipes.lock;

import dev.corral.client.CoordinationClient;
import dev.corral.client.CoordinationException;
import dev.corral.client.NoNodeException;
import java.nio.charset.StandardCharsets;

/**
 * Asks the holder of a lock node to give the lock up, as Curator's
 * {@code Revoker}: the node's data becomes the revoke message, which a lock made
 * revocable ({@link InterProcessMutex#makeRevocable}) hears on its held node.
 */
public final class Revoker {
  /** The data that asks for revocation: the same bytes as Curator's. */
  static final byte[] REVOKE_MESSAGE = "__REVOKE__".getBytes(StandardCharsets.US_ASCII);

  private Revoker() {}

  /**
   * Asks the holder of the lock node at {@code path} (one of
   * {@link InterProcessMutex#getParticipantNodes()}) to release it. A node that is already gone is not an
   * error: its lock was released.
   */
  public static void attemptRevoke(CoordinationClient client, String path)
      throws CoordinationException, InterruptedException {
    try {
      client.setData(path, REVOKE_MESSAGE, -1);
    } catch (NoNodeException released) {
      // nothing left to revoke
    }
  }
}
