package io.sstableflight.trino.it;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * Client certificates for mTLS as PEM files, made with the JDK's keytool:
 * a CA the server is told to trust (--tls-client-ca), a client certificate
 * it signed with its key, and a rogue client certificate that no CA the
 * server knows signed (self-signed), with its key.
 */
record ClientTls(Path ca, Path certificate, Path key, Path rogueCertificate, Path rogueKey)
{
    private static final String PASSWORD = "it-only";

    static ClientTls create(Path dir)
            throws IOException, InterruptedException, GeneralSecurityException
    {
        Files.createDirectories(dir);
        Path keystore = dir.resolve("clients.p12");
        genkeypair(keystore, "ca", "CN=sstable-flight-it-client-ca", "bc:c");
        genkeypair(keystore, "client", "CN=sstable-flight-it-client", "EKU=clientAuth");
        genkeypair(keystore, "rogue", "CN=sstable-flight-it-rogue", "EKU=clientAuth");
        Path ca = export(keystore, "ca", dir.resolve("client-ca.crt"));
        Path rogue = export(keystore, "rogue", dir.resolve("rogue.crt"));
        Path request = dir.resolve("client.csr");
        keytool(keystore, "-certreq", "-alias", "client", "-file", request.toString());
        Path certificate = dir.resolve("client.crt");
        keytool(keystore, "-gencert", "-alias", "ca", "-rfc", "-infile", request.toString(), "-outfile", certificate.toString(),
                "-ext", "EKU=clientAuth", "-validity", "2");
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            store.load(in, PASSWORD.toCharArray());
        }
        return new ClientTls(ca, certificate, writeKey(store, "client", dir.resolve("client.key")), rogue, writeKey(store, "rogue", dir.resolve("rogue.key")));
    }

    private static void genkeypair(Path keystore, String alias, String dname, String extension)
            throws IOException, InterruptedException
    {
        keytool(keystore, "-genkeypair", "-storetype", "PKCS12", "-alias", alias, "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", dname, "-ext", extension, "-validity", "2");
    }

    private static Path export(Path keystore, String alias, Path file)
            throws IOException, InterruptedException
    {
        keytool(keystore, "-exportcert", "-rfc", "-alias", alias, "-file", file.toString());
        return file;
    }

    private static Path writeKey(KeyStore store, String alias, Path file)
            throws IOException, GeneralSecurityException
    {
        PrivateKey key = (PrivateKey) store.getKey(alias, PASSWORD.toCharArray());
        String pem = "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(UTF_8)).encodeToString(key.getEncoded())
                + "\n-----END PRIVATE KEY-----\n";
        return Files.writeString(file, pem, UTF_8);
    }

    private static void keytool(Path keystore, String command, String... arguments)
            throws IOException, InterruptedException
    {
        List<String> line = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(), command,
                "-keystore", keystore.toString(), "-storepass", PASSWORD));
        line.addAll(List.of(arguments));
        Process process = new ProcessBuilder(line).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), UTF_8);
        if (process.waitFor() != 0) {
            throw new IOException("keytool %s failed: %s".formatted(command, out));
        }
    }
}
