import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.log4j.BasicConfigurator;
import org.apache.log4j.Level;
import org.apache.log4j.Logger;

/**
 * Readiness probe run by kafka.sh (java source-file mode): the broker is ready once it answers a
 * metadata request, can create (then delete) a topic, which needs the controller too, and has a
 * group coordinator.
 * Arguments: bootstrap address, timeout in seconds.
 */
public class Ready {
  public static void main(String[] args) throws Exception {
    BasicConfigurator.configure();
    Logger.getRootLogger().setLevel(Level.WARN);
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Integer.parseInt(args[1]) * 1000);
    try (Admin admin = Admin.create(props)) {
      int brokers = admin.describeCluster().nodes().get(Integer.parseInt(args[1]), TimeUnit.SECONDS).size();
      String probe = "__weir_ready_probe";
      admin.createTopics(List.of(new NewTopic(probe, 1, (short) 1))).all().get();
      admin.deleteTopics(List.of(probe)).all().get();
      // Asking for a group's offsets makes the broker create the offsets topic and elect the group
      // coordinator now, not on the first test's consumer.
      admin.listConsumerGroupOffsets("__weir_ready_probe").partitionsToOffsetAndMetadata().get();
      System.out.println("[kafka] metadata answered: " + brokers + " broker(s)");
    }
  }
}
