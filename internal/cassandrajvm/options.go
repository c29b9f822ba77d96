package cassandrajvm

// JDK17Modules are the module-system openings Cassandra 5.0 needs on
// JDK 17, as its own conf/jvm17-server.options lists them; NodeTool
// needs them too. A copy each caller may append to.
func JDK17Modules() []string {
	return []string{
		"-Djdk.attach.allowAttachSelf=true",
		"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
		"--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED",
		"--add-exports", "java.base/sun.nio.ch=ALL-UNNAMED",
		"--add-exports", "java.management.rmi/com.sun.jmx.remote.internal.rmi=ALL-UNNAMED",
		"--add-exports", "java.rmi/sun.rmi.registry=ALL-UNNAMED",
		"--add-exports", "java.rmi/sun.rmi.server=ALL-UNNAMED",
		"--add-exports", "java.sql/java.sql=ALL-UNNAMED",
		"--add-opens", "java.base/java.lang.module=ALL-UNNAMED",
		"--add-opens", "java.base/jdk.internal.loader=ALL-UNNAMED",
		"--add-opens", "java.base/jdk.internal.ref=ALL-UNNAMED",
		"--add-opens", "java.base/jdk.internal.reflect=ALL-UNNAMED",
		"--add-opens", "java.base/jdk.internal.math=ALL-UNNAMED",
		"--add-opens", "java.base/jdk.internal.module=ALL-UNNAMED",
		"--add-opens", "java.base/jdk.internal.util.jar=ALL-UNNAMED",
		"--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED",
		"--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
		"--add-opens", "java.base/java.io=ALL-UNNAMED",
		"--add-opens", "java.base/java.nio=ALL-UNNAMED",
		"--add-opens", "java.base/java.util.concurrent=ALL-UNNAMED",
		"--add-opens", "java.base/java.util=ALL-UNNAMED",
		"--add-opens", "java.base/java.util.concurrent.atomic=ALL-UNNAMED",
		"--add-opens", "java.base/java.lang=ALL-UNNAMED",
		"--add-opens", "java.base/java.math=ALL-UNNAMED",
		"--add-opens", "java.base/java.lang.reflect=ALL-UNNAMED",
		"--add-opens", "java.base/java.net=ALL-UNNAMED",
	}
}
