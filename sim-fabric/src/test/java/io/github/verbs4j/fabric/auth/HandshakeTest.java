package io.github.verbs4j.fabric.auth;

import static org.junit.jupiter.api.Assertions.*;

import io.github.verbs4j.fabric.FabricException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HandshakeTest {
  private final JobSecret secret = JobSecret.generate();

  @Test
  void bothSidesHoldingTheSecretAgreeAndTheServerLearnsTheClientsNode() {
    Handshake c = Handshake.client(secret, Handshake.Kind.DATA, 3, 1);
    Handshake s = Handshake.server(secret, Handshake.Kind.DATA);
    byte[] challenge = s.challenge(c.hello(), 1, 4);
    s.verify(c.answer(challenge));
    assertEquals(3, s.clientNode());
  }

  @Test
  void aClientWithAnotherSecretRefusesTheServerBeforeProvingAnything() {
    Handshake c = Handshake.client(JobSecret.generate(), Handshake.Kind.COORDINATOR, 0, 0);
    Handshake s = Handshake.server(secret, Handshake.Kind.COORDINATOR);
    Handshake.AuthException e = assertThrows(Handshake.AuthException.class, () -> c.answer(s.challenge(c.hello(), 0, 0)));
    assertEquals(Handshake.Failure.BAD_PROOF, e.failure());
  }

  @Test
  void aForgedOrReplayedProofIsRefused() {
    Handshake c = Handshake.client(secret, Handshake.Kind.DATA, 2, 1);
    Handshake s = Handshake.server(secret, Handshake.Kind.DATA);
    byte[] challenge = s.challenge(c.hello(), 1, 2);
    byte[] proof = c.answer(challenge);
    proof[5] ^= 1;
    assertEquals(Handshake.Failure.BAD_PROOF, assertThrows(Handshake.AuthException.class, () -> s.verify(proof)).failure());
    // The server's own proof (bytes 20..51 of its challenge) replayed as the client's.
    byte[] serverProof = java.util.Arrays.copyOfRange(challenge, 20, 52);
    assertEquals(Handshake.Failure.BAD_PROOF, assertThrows(Handshake.AuthException.class, () -> s.verify(serverProof)).failure());
    // A proof of an earlier connection against a new challenge.
    Handshake s2 = Handshake.server(secret, Handshake.Kind.DATA);
    s2.challenge(c.hello(), 1, 2);
    byte[] old = c.answer(challenge);
    assertEquals(Handshake.Failure.BAD_PROOF, assertThrows(Handshake.AuthException.class, () -> s2.verify(old)).failure());
  }

  @Test
  void helloOfAnotherKindNodeOrFormatIsRefused() {
    Handshake s = Handshake.server(secret, Handshake.Kind.DATA);
    assertEquals(Handshake.Failure.WRONG_NODE, assertThrows(Handshake.AuthException.class,
        () -> s.challenge(Handshake.client(secret, Handshake.Kind.DATA, 2, 5).hello(), 1, 4)).failure());
    assertEquals(Handshake.Failure.WRONG_NODE, assertThrows(Handshake.AuthException.class,
        () -> s.challenge(Handshake.client(secret, Handshake.Kind.DATA, 9, 1).hello(), 1, 4)).failure());
    assertEquals(Handshake.Failure.BAD_HELLO, assertThrows(Handshake.AuthException.class,
        () -> s.challenge(Handshake.client(secret, Handshake.Kind.COORDINATOR, 0, 0).hello(), 1, 4)).failure());
    assertEquals(Handshake.Failure.BAD_HELLO, assertThrows(Handshake.AuthException.class,
        () -> s.challenge(new byte[Handshake.HELLO_LENGTH], 1, 4)).failure());
  }

  @Test
  void secretFilesAreWrittenPrivateAndLooseOnesRefused(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("job.secret");
    secret.write(f);
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
    assertEquals(secret, JobSecret.read(f));
    assertEquals(secret, JobSecret.fromEnvironment(Map.of(JobSecret.ENV_FILE, f.toString())).orElseThrow());
    assertEquals(secret, JobSecret.fromEnvironment(Map.of(JobSecret.ENV, secret.toHex())).orElseThrow());
    assertTrue(JobSecret.fromEnvironment(Map.of()).isEmpty());
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
    FabricException e = assertThrows(FabricException.class, () -> JobSecret.read(f));
    assertTrue(e.getMessage().contains("chmod 600"), e.getMessage());
    assertThrows(FabricException.class, () -> JobSecret.parse("abc", "test"));
    assertFalse(secret.toString().contains(secret.toHex().substring(0, 8)));
  }

  @Test
  void filesOfDeadProcessesAreStaleOthersStay(@TempDir Path base) throws Exception {
    Path dir = PrivateDir.of(base.toString());
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
    Process p = new ProcessBuilder("true").start();
    p.waitFor();
    long dead = p.pid();
    Path staleSock = Files.createFile(dir.resolve("n-" + dead + "-0-abc.sock"));
    Path staleKey = Files.createFile(dir.resolve("c-7000-" + dead + ".key"));
    Path mine = PrivateDir.socketPath(dir, 1);
    Files.createFile(mine);
    Path other = Files.createFile(dir.resolve("notes.txt"));
    assertEquals(java.util.Set.of(staleSock, staleKey), java.util.Set.copyOf(PrivateDir.leftovers(dir)));
    assertTrue(PrivateDir.cleanStale(dir) >= 2); // and any old-style socket of an exited process in java.io.tmpdir
    assertFalse(Files.exists(staleSock));
    assertFalse(Files.exists(staleKey));
    assertTrue(Files.exists(mine));
    assertTrue(Files.exists(other));
    assertEquals(1, PrivateDir.removeFilesOf(dir, ProcessHandle.current().pid()));
    assertFalse(Files.exists(mine));
  }

  @Test
  void theBuildsCheckFailsOnAFileLeftByAnExitedProcess() throws Exception {
    Path dir = PrivateDir.of("");
    Process p = new ProcessBuilder("true").start();
    p.waitFor();
    Path left = Files.createFile(dir.resolve("n-" + p.pid() + "-0-beef.sock"));
    try {
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> PrivateDir.main(new String[0]));
      assertTrue(e.getMessage().contains(left.getFileName().toString()), e.getMessage());
    } finally {
      Files.deleteIfExists(left);
    }
  }
}
