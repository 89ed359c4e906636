package dev.corral.client;

/**
 * A node's metadata, as ZooKeeper's Stat.
 *
 * @param czxid zxid of the change that created the node
 * @param mzxid zxid of the last data change
 * @param pzxid zxid of the last change to the children
 * @param ctime creation time, ms since the epoch (the proposing server's clock)
 * @param mtime last data change time, ms since the epoch
 * @param version number of data changes
 * @param cversion number of changes to the children (each create and each delete of a child)
 * @param aversion number of ACL changes (always 0)
 * @param ephemeralOwner the owning session for an ephemeral node, else 0
 * @param dataLength data length in bytes
 * @param numChildren number of children
 */
public record Stat(
    long czxid,
    long mzxid,
    long pzxid,
    long ctime,
    long mtime,
    int version,
    int cversion,
    int aversion,
    long ephemeralOwner,
    int dataLength,
    int numChildren) {

  /** True if the node is ephemeral. */
  public boolean isEphemeral() {
    return ephemeralOwner != 0;
  }
}
