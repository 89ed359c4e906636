package dev.corral.server.replication;

import dev.corral.server.tree.DataTree;
import dev.corral.server.tree.TreeSnapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.util.MD5FileUtil;

/**
 * A single server's snapshots: {@code snapshot.<log index>} files, each with
 * its {@code .md5}, in one directory, written as an ensemble's are
 * ({@link SnapshotStorage#writeDurably}). The newest {@code retained} are kept.
 */
final class LocalSnapshots {
  private static final String PREFIX = "snapshot.";

  /** A complete snapshot on disk, holding every record of the log up to {@code index}. */
  record Found(long index, Path file) {}

  private final Path dir;
  private final int retained;

  LocalSnapshots(Path dir, int retained) throws IOException {
    this.dir = Files.createDirectories(dir);
    this.retained = retained;
  }

  /** The newest complete snapshot, if any. */
  Optional<Found> latest() throws IOException {
    List<Found> all = complete();
    return all.isEmpty() ? Optional.empty() : Optional.of(all.get(all.size() - 1));
  }

  /** Reads a snapshot's tree after checking it against its checksum. */
  static DataTree read(Found snapshot) throws IOException {
    MD5Hash expected = MD5FileUtil.readStoredMd5ForFile(snapshot.file().toFile());
    return SnapshotStorage.read(snapshot.file(), expected);
  }

  /** Writes {@code view} durably as the snapshot at {@code index}, then deletes the ones beyond retention. */
  void write(long index, TreeSnapshot view) throws IOException {
    SnapshotStorage.writeDurably(view, dir.resolve(name(index) + ".tmp"), dir.resolve(name(index)).toFile());
    List<Found> all = complete();
    for (Found old : all.subList(0, Math.max(0, all.size() - retained))) {
      Files.deleteIfExists(MD5FileUtil.getDigestFileForFile(old.file().toFile()).toPath());
      Files.delete(old.file());
    }
  }

  private static String name(long index) {
    return String.format("%s%020d", PREFIX, index);
  }

  /** Snapshot files that have their checksum file, oldest first. */
  private List<Found> complete() throws IOException {
    List<Found> found = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        String name = file.getFileName().toString();
        String digits = name.startsWith(PREFIX) ? name.substring(PREFIX.length()) : "";
        if (!digits.isEmpty() && digits.chars().allMatch(Character::isDigit)
            && MD5FileUtil.getDigestFileForFile(file.toFile()).exists()) {
          found.add(new Found(Long.parseLong(digits), file));
        }
      }
    }
    found.sort((a, b) -> Long.compare(a.index(), b.index()));
    return found;
  }
}
