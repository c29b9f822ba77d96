package io.sstableflight.trino.it;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.util.Base64;
import java.util.List;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * A self-signed certificate for 127.0.0.1 and its key as PEM files, made
 * with the JDK's own keytool (no openssl needed): the server serves it, the
 * catalog trusts it as its CA.
 */
record TlsMaterial(Path certificate, Path key)
{
    private static final char[] PASSWORD = "it-only".toCharArray();

    static TlsMaterial create(Path dir)
            throws IOException, InterruptedException, java.security.GeneralSecurityException
    {
        Files.createDirectories(dir);
        Path keystore = dir.resolve("server.p12");
        Path certificate = dir.resolve("server.crt");
        Path key = dir.resolve("server.key");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        run(List.of(keytool, "-genkeypair", "-keystore", keystore.toString(), "-storetype", "PKCS12",
                "-storepass", new String(PASSWORD), "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", "CN=127.0.0.1", "-ext", "SAN=IP:127.0.0.1", "-validity", "2"));
        run(List.of(keytool, "-exportcert", "-rfc", "-keystore", keystore.toString(), "-storepass", new String(PASSWORD),
                "-alias", "server", "-file", certificate.toString()));
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            store.load(in, PASSWORD);
        }
        PrivateKey privateKey = (PrivateKey) store.getKey("server", PASSWORD);
        String pem = "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(UTF_8)).encodeToString(privateKey.getEncoded())
                + "\n-----END PRIVATE KEY-----\n";
        Files.writeString(key, pem, UTF_8);
        return new TlsMaterial(certificate, key);
    }

    private static void run(List<String> command)
            throws IOException, InterruptedException
    {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), UTF_8);
        if (process.waitFor() != 0) {
            throw new IOException("%s failed: %s".formatted(command.subList(0, 2), out));
        }
    }
}
