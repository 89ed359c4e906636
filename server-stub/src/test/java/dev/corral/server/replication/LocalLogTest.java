package dev.corral.server.replication;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalLogTest {
  private static final long SEGMENT_BYTES = 16 << 10;

  @TempDir
  Path dir;

  @Test
  void recordsAppendedAcrossSegmentsAreReadBackInOrderAfterReopening() throws Exception {
    try (LocalLog log = LocalLog.open(dir, SEGMENT_BYTES, 0)) {
      appendAndFlush(log, 1, 100, 1000);
    }

    try (LocalLog reopened = LocalLog.open(dir, SEGMENT_BYTES, 0)) {
      assertEquals(100, reopened.lastIndex());
      assertTrue(segments().size() > 5, "100 KiB in 16 KiB segments: " + segments());
      List<Long> indexes = new ArrayList<>();
      reopened.replay(0, (index, payload) -> {
        indexes.add(index);
        assertArrayEquals(payload(index, 1000), payload);
      });
      assertEquals(100, indexes.size());
      assertEquals(1L, indexes.get(0));
      assertEquals(100L, indexes.get(99));
    }
  }

  @Test
  void aLogWrittenInSmallerSegmentsGoesOnInLargerOnes() throws Exception {
    try (LocalLog log = LocalLog.open(dir, SEGMENT_BYTES, 0)) { // as a server before segments grew
      appendAndFlush(log, 1, 40, 1000);
    }
    List<Path> small = segments();

    try (LocalLog reopened = LocalLog.open(dir, 4 * SEGMENT_BYTES, 0)) {
      appendAndFlush(reopened, 41, 60, 1000);
      List<Path> now = segments();
      assertEquals(small.size() + 1, now.size(), "the open segment grew to the new size, then one more: " + now);
      assertEquals(4 * SEGMENT_BYTES, Files.size(small.get(small.size() - 1)));
    }
    try (LocalLog again = LocalLog.open(dir, 4 * SEGMENT_BYTES, 0)) {
      assertEquals(100, again.lastIndex());
      List<Long> indexes = replayed(again, 0);
      assertEquals(100, indexes.size());
      assertEquals(1L, indexes.get(0));
      assertEquals(100L, indexes.get(99));
    }
  }

  @Test
  void replayFromAnIndexSkipsTheRecordsAtOrBeforeIt() throws Exception {
    try (LocalLog log = LocalLog.open(dir, SEGMENT_BYTES, 0)) {
      appendAndFlush(log, 1, 60, 1000);
      List<Long> indexes = replayed(log, 41);
      assertEquals(19, indexes.size());
      assertEquals(42L, indexes.get(0));
    }
  }

  @Test
  void aDamagedRecordInAClosedSegmentFailsTheReplay() throws Exception {
    try (LocalLog log = LocalLog.open(dir, SEGMENT_BYTES, 0)) {
      appendAndFlush(log, 1, 40, 1000);
    }
    Path first = segments().get(0);
    byte[] bytes = Files.readAllBytes(first);
    bytes[2000] ^= 1;
    Files.write(first, bytes);

    try (LocalLog reopened = LocalLog.open(dir, SEGMENT_BYTES, 0)) {
      IOException e = assertThrows(IOException.class, () -> reopened.replay(0, (index, payload) -> { }));
      assertTrue(e.getMessage().contains("corrupt"), e.getMessage());
    }
  }

  @Test
  void purgingDeletesOnlyClosedSegmentsWhollyAtOrBeforeTheIndex() throws Exception {
    try (LocalLog log = LocalLog.open(dir, SEGMENT_BYTES, 0)) {
      appendAndFlush(log, 1, 60, 1000);
      List<Path> before = segments();

      log.purgeUpTo(30);

      List<Long> indexes = replayed(log, 30);
      assertEquals(30, indexes.size(), "every record after the purge index is kept");
      assertTrue(segments().size() < before.size(), "segments " + before + " -> " + segments());
      List<Long> all = replayed(log, 0);
      assertTrue(all.get(0) > 1 && all.get(0) <= 31, "the log now starts at " + all.get(0));
    }
  }

  @Test
  void aLogEntirelyBeforeTheSnapshotStartsAfreshAfterIt() throws Exception {
    try (LocalLog log = LocalLog.open(dir, SEGMENT_BYTES, 0)) {
      appendAndFlush(log, 1, 5, 100);
    }

    try (LocalLog log = LocalLog.open(dir, SEGMENT_BYTES, 20)) {
      assertEquals(20, log.lastIndex());
      appendAndFlush(log, 21, 2, 100);
    }
    try (LocalLog log = LocalLog.open(dir, SEGMENT_BYTES, 20)) {
      assertEquals(List.of(21L, 22L), replayed(log, 0));
    }
  }

  @Test
  void aLogStartingAfterTheSnapshotHasAGapAndDoesNotOpen() throws Exception {
    try (LocalLog log = LocalLog.open(dir, SEGMENT_BYTES, 10)) {
      appendAndFlush(log, 11, 5, 100);
    }

    IOException e = assertThrows(IOException.class, () -> LocalLog.open(dir, SEGMENT_BYTES, 5));
    assertTrue(e.getMessage().contains("missing"), e.getMessage());
  }

  @Test
  void theNextSegmentIsWrittenInZerosBeforeTheLogRollsOverToIt() throws Exception {
    try (LocalLog log = LocalLog.open(dir, SEGMENT_BYTES, 0)) {
      appendAndFlush(log, 1, 5, 1000);
      awaitZeroFilledSpare();
      assertEquals(1, segments().size());

      appendAndFlush(log, 6, 20, 1000); // 25 KiB: past the first segment

      assertEquals(2, segments().size());
      awaitZeroFilledSpare(); // the next one, prepared again
      assertEquals(25, replayed(log, 0).size());
    }
  }

  @Test
  void aSpareLeftHalfWrittenIsPreparedAfresh() throws Exception {
    Files.write(dir.resolve(LocalLog.SPARE), new byte[] {1, 2, 3}); // a crash while it was prepared

    try (LocalLog log = LocalLog.open(dir, SEGMENT_BYTES, 0)) {
      appendAndFlush(log, 1, 40, 1000);
      awaitZeroFilledSpare();
    }
    try (LocalLog reopened = LocalLog.open(dir, SEGMENT_BYTES, 0)) {
      assertEquals(40, reopened.lastIndex());
      assertEquals(40, replayed(reopened, 0).size());
    }
  }

  @Test
  void anIndexOutOfSequenceIsRefused() throws Exception {
    try (LocalLog log = LocalLog.open(dir, SEGMENT_BYTES, 0)) {
      assertThrows(IllegalArgumentException.class, () -> log.append(2, new byte[1]));
    }
  }

  /**
   * Waits until the spare segment is the segment size, all of it zeros written
   * to the disk: blocks allocated, not a hole (which reads as zeros too).
   */
  private void awaitZeroFilledSpare() {
    Path spare = dir.resolve(LocalLog.SPARE);
    byte[] zeros = new byte[(int) SEGMENT_BYTES];
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      assertTrue(Files.exists(spare), "no spare segment in " + dir);
      assertTrue(Arrays.equals(zeros, Files.readAllBytes(spare)), "the spare is not " + SEGMENT_BYTES + " zeros");
      long allocated = allocatedBytes(spare);
      assertTrue(allocated < 0 || allocated >= SEGMENT_BYTES, "the spare has holes: " + allocated + " bytes allocated");
    });
  }

  /** The disk space a file takes (GNU stat's blocks times their size), or -1 where stat cannot tell. */
  private static long allocatedBytes(Path file) throws IOException, InterruptedException {
    Process stat = new ProcessBuilder("stat", "-c", "%b %B", file.toString()).redirectErrorStream(true).start();
    String out = new String(stat.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (stat.waitFor() != 0 || !out.matches("\\d+ \\d+")) {
      return -1;
    }
    String[] blocksAndSize = out.split(" ");
    return Long.parseLong(blocksAndSize[0]) * Long.parseLong(blocksAndSize[1]);
  }

  /** The indexes of the records replayed after {@code afterIndex}, in the order read. */
  private static List<Long> replayed(LocalLog log, long afterIndex) throws IOException {
    List<Long> indexes = new ArrayList<>();
    log.replay(afterIndex, (index, payload) -> indexes.add(index));
    return indexes;
  }

  private static void appendAndFlush(LocalLog log, long from, int count, int bytes) throws IOException {
    for (long index = from; index < from + count; index++) {
      log.append(index, payload(index, bytes));
      if (index % 7 == 0) {
        log.flush();
      }
    }
    log.flush();
  }

  private static byte[] payload(long index, int bytes) {
    byte[] payload = new byte[bytes];
    byte[] label = ("record " + index).getBytes(StandardCharsets.UTF_8);
    System.arraycopy(label, 0, payload, 0, label.length);
    return payload;
  }

  private List<Path> segments() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().startsWith("log_")).sorted().toList();
    }
  }
}
