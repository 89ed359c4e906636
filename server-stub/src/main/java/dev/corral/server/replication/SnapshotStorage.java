package dev.corral.server.replication;

import dev.corral.server.tree.DataTree;
import dev.corral.server.tree.TreeSnapshot;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotRetentionPolicy;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.util.MD5FileUtil;

/**
 * Snapshot files in Ratis's single-file layout ({@code sm/snapshot.<term>_<index>}
 * with its {@code .md5}), so that Ratis can find, retain and ship them to a
 * lagging follower. A snapshot is written to a temporary file, fsynced, given its
 * checksum file and only then renamed into place: a snapshot file that exists is
 * complete.
 */
final class SnapshotStorage extends SimpleStateMachineStorage {
  private static final int BUFFER_BYTES = 1 << 16;

  private volatile SingleFileSnapshotInfo latest;
  /** The snapshot index up to which old files were cleaned up; touched by the apply thread only. */
  private long cleanedAt = Long.MIN_VALUE;

  @Override
  public void init(RaftStorage storage) throws IOException {
    super.init(storage);
    latest = loadLatestSnapshot();
  }

  /** Rescans the directory (a snapshot may have been installed by the leader). */
  SingleFileSnapshotInfo reload() {
    SingleFileSnapshotInfo found = loadLatestSnapshot();
    if (found != null && (latest == null || found.getIndex() > latest.getIndex())) {
      latest = found;
    }
    return latest;
  }

  /** The newest complete snapshot, or null. */
  @Override
  public SingleFileSnapshotInfo getLatestSnapshot() {
    return latest;
  }

  /** The index of the newest complete snapshot, or -1. */
  long latestIndex() {
    SingleFileSnapshotInfo s = latest;
    return s == null ? -1 : s.getIndex();
  }

  /**
   * Writes {@code view} durably as the snapshot at {@code at} and records it as the
   * latest. On failure nothing is recorded and no snapshot file is left behind.
   */
  SingleFileSnapshotInfo write(TermIndex at, TreeSnapshot view) throws IOException {
    File target = getSnapshotFile(at.getTerm(), at.getIndex());
    MD5Hash md5 = writeDurably(view, getTmpSnapshotFile(at.getTerm(), at.getIndex()).toPath(), target);
    SingleFileSnapshotInfo info = new SingleFileSnapshotInfo(new FileInfo(target.toPath(), md5), at);
    latest = updateLatestSnapshot(info);
    return info;
  }

  /**
   * Writes {@code view} to {@code tmp} and fsyncs it, saves {@code target}'s
   * {@code .md5}, renames {@code tmp} to {@code target} and fsyncs the directory:
   * a snapshot file that exists is complete. On failure {@code tmp} is deleted.
   * Returns the file's MD5.
   */
  static MD5Hash writeDurably(TreeSnapshot view, Path tmp, File target) throws IOException {
    try {
      MD5Hash md5 = writeAndSync(tmp, view);
      saveMd5(target, md5);
      Files.move(tmp, target.toPath(), StandardCopyOption.ATOMIC_MOVE);
      syncDirectory(target.toPath().getParent());
      return md5;
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(tmp);
      throw e;
    }
  }

  /** Reads the snapshot's tree after checking the file's MD5 (when it has one). */
  static DataTree read(SingleFileSnapshotInfo snapshot) throws IOException {
    return read(snapshot.getFile().getPath(), snapshot.getFile().getFileDigest());
  }

  /** Reads a snapshot file's tree after checking its MD5 against {@code expected} (when not null). */
  static DataTree read(Path file, MD5Hash expected) throws IOException {
    if (expected != null) {
      MD5Hash actual = MD5FileUtil.computeMd5ForFile(file.toFile());
      if (!expected.equals(actual)) {
        throw new IOException("snapshot " + file + " has MD5 " + actual + ", expected " + expected);
      }
    }
    try (InputStream in = new BufferedInputStream(Files.newInputStream(file), BUFFER_BYTES)) {
      return DataTree.load(in);
    }
  }

  /** Ratis calls this after every takeSnapshot; only scan the directory when a new snapshot appeared. */
  @Override
  public void cleanupOldSnapshots(SnapshotRetentionPolicy policy) throws IOException {
    long index = latestIndex();
    if (index != cleanedAt) {
      super.cleanupOldSnapshots(policy);
      cleanedAt = index;
    }
  }

  private static MD5Hash writeAndSync(Path tmp, TreeSnapshot view) throws IOException {
    MessageDigest digest = MD5FileUtil.newMD5();
    try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
      OutputStream out = new DigestOutputStream(
          new BufferedOutputStream(Channels.newOutputStream(channel), BUFFER_BYTES), digest);
      view.writeTo(out);
      out.flush();
      channel.force(true);
    }
    return MD5Hash.newInstance(digest.digest());
  }

  /** Ratis's {@code .md5} format ({@code <hex> *<file name>}), written and fsynced before the rename. */
  private static void saveMd5(File snapshot, MD5Hash md5) throws IOException {
    Path md5File = MD5FileUtil.getDigestFileForFile(snapshot).toPath();
    Path tmp = md5File.resolveSibling(md5File.getFileName() + ".tmp");
    byte[] line = (md5 + " *" + snapshot.getName() + "\n").getBytes(StandardCharsets.UTF_8);
    try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
      channel.write(ByteBuffer.wrap(line));
      channel.force(true);
    }
    Files.move(tmp, md5File, StandardCopyOption.ATOMIC_MOVE);
  }

  /** Makes the directory's entries (files created, renamed or deleted in it) durable. */
  static void syncDirectory(Path dir) throws IOException {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }
}
