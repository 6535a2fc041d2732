#include "cli/prove_output.hpp"

#include <fmt/format.h>

#include <bit>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/format.hpp"
#include "job/run_memory.hpp"

namespace cuzk::cli {

namespace {

// `--json` result records, one line per input (docs/json-results.md).
constexpr const char* kResultSchema = "cuzk.prove.result/1";

// `--dry-run --json`: one object (docs/large-sectors.md, "Planning a run").
constexpr const char* kDryRunSchema = "cuzk.prove.dry-run/1";

void print_dry_run_json(const job::RunPlan& plan, const std::optional<job::Shard>& shard) {
  nlohmann::ordered_json j;
  j["schema"] = kDryRunSchema;
  if (shard) j["shard"] = {{"index", shard->index}, {"count", shard->count}};
  j["sectors"] = nlohmann::ordered_json::array();
  for (const job::PlannedSector& s : plan.sectors)
    j["sectors"].push_back(nlohmann::ordered_json{{"sector", s.sector},
                                                  {"c1", s.c1_path},
                                                  {"proof_type", s.proof_type},
                                                  {"sector_size", s.sector_size},
                                                  {"partitions", s.partitions},
                                                  {"proof_file", s.proof_path}});
  j["already_proven"] = nlohmann::ordered_json::array();
  for (const job::AlreadyProven& s : plan.already_proven)
    j["already_proven"].push_back(nlohmann::ordered_json{
        {"sector", s.sector}, {"c1", s.c1_path}, {"proof_type", s.proof_type}, {"proof_file", s.proof_path}});
  // Nothing to prove (an empty shard, or every proof there already): no circuit to plan for.
  if (plan.memory) {
    const job::RunMemoryPlan& memory = *plan.memory;
    j["circuit"] = memory.sector_size;
    if (memory.device) j["device"] = job::device_plan_json(*memory.device);
    j["host_bytes"] = memory.host.total;
    j["host"] = job::host_plan_json(memory.host);
  }
  j["fits"] = plan.fits();
  j["notes"] = plan.notes;
  std::printf("%s\n", json_text(j).c_str());
}

void print_dry_run_text(const job::RunPlan& plan, const std::optional<job::Shard>& shard) {
  std::printf("dry run: nothing is synthesized, proven or written\n");
  if (shard) std::printf("shard %u/%u\n", shard->index, shard->count);
  for (const job::PlannedSector& s : plan.sectors)
    std::printf("sector %s: %s, %s (%s, %u partition%s) -> %s\n", s.sector.c_str(), s.c1_path.c_str(),
                s.proof_type.c_str(), s.sector_size.c_str(), s.partitions, s.partitions == 1 ? "" : "s",
                s.proof_path.c_str());
  for (const job::AlreadyProven& s : plan.already_proven)
    std::printf("sector %s: %s, already proven: %s verifies (--skip-existing)\n", s.sector.c_str(),
                s.c1_path.c_str(), s.proof_path.c_str());
  for (const std::string& note : plan.notes) std::printf("note: %s\n", note.c_str());
  if (!plan.memory) {
    std::printf("nothing to prove\n");
    return;
  }
  const job::RunMemoryPlan& memory = *plan.memory;
  // A range is a power of two, or the longest vector when that is shorter (printed as the power above).
  const auto lg = [](std::size_t n) { return unsigned(std::bit_width(n > 1 ? n - 1 : 1)); };
  if (const auto& d = memory.device) {
    std::printf("GPU plan for %s sectors, budget %s (%s):\n", memory.sector_size.c_str(),
                human_bytes(d->budget).c_str(), memory.request.device_budget_from.c_str());
    for (const gpu::VectorPlan& v : d->vectors)
      std::printf(
          "  %-5s %12zu points %10s  %s\n", gpu::base_vector_name(v.id), v.count,
          human_bytes(v.bytes).c_str(),
          v.resident ? "resident" : fmt::format("streamed in windows of 2^{} points", lg(d->range)).c_str());
    std::printf("  MSM ranges of 2^%u points; constraints on the %s; %s sent per partition\n", lg(d->range),
                d->constraints_on_device ? "device" : "host",
                human_bytes(d->upload_bytes_per_partition).c_str());
    std::printf("  needs %s of %s: %s\n", human_bytes(d->need).c_str(), human_bytes(d->budget).c_str(),
                d->fits ? "fits" : "does NOT fit");
  }
  const gpu::HostPlan& h = memory.host;
  std::printf("host plan for %s sectors (%s engine):\n  %s\n", memory.sector_size.c_str(),
              memory.request.gpu ? "GPU" : "CPU", h.describe().c_str());
  std::printf("  needs %s of %s: %s\n", human_bytes(h.total).c_str(),
              h.available ? (human_bytes(h.available) + " available").c_str() : "an unknown amount available",
              h.fits ? "fits" : "does NOT fit");
  std::printf("%s\n", plan.fits() ? "the run fits" : "the run does NOT fit");
}

}  // namespace

std::string proven_record(const job::SectorReport& s) {
  nlohmann::ordered_json j;
  j["schema"] = kResultSchema;
  j["status"] = "proven";
  j["c1"] = s.c1_path;
  j["sector"] = s.sector;
  j["proof_type"] = s.proof_type;
  j["partitions"] = s.partitions;
  j["proof"] = s.proof_path;
  j["proof_hex"] = s.proof_hex;
  j["verified"] = s.verified;
  j["seconds"] = s.total.wall_s;
  if (!s.public_inputs_path.empty()) j["public_inputs"] = s.public_inputs_path;
  return json_text(j);
}

std::string already_proven_record(const job::AlreadyProven& s) {
  nlohmann::ordered_json j;
  j["schema"] = kResultSchema;
  j["status"] = "skipped";
  j["c1"] = s.c1_path;
  j["sector"] = s.sector;
  j["reason"] = "already_proven";
  j["proof_type"] = s.proof_type;
  j["partitions"] = s.partitions;
  j["proof"] = s.proof_path;
  j["proof_hex"] = s.proof_hex;
  j["verified"] = true;
  if (!s.public_inputs_path.empty()) j["public_inputs"] = s.public_inputs_path;
  return json_text(j);
}

std::string failed_record(const std::string& c1, const ReportedError& error) {
  nlohmann::ordered_json j;
  j["schema"] = kResultSchema;
  j["status"] = "failed";
  j["c1"] = c1;
  j["sector"] = nullptr;
  j["error"] = {{"kind", error.kind}, {"exit_code", error.exit_code}, {"message", error.message}};
  return json_text(j);
}

std::string skipped_record(const std::string& c1, int exit_code) {
  nlohmann::ordered_json j;
  j["schema"] = kResultSchema;
  j["status"] = "skipped";
  j["c1"] = c1;
  j["sector"] = nullptr;
  j["reason"] = "not_attempted";
  j["error"] = {{"kind", "not_attempted"},
                {"exit_code", exit_code},
                {"message", "not attempted: an earlier input failed"}};
  return json_text(j);
}

void print_dry_run(const job::RunPlan& plan, const std::optional<job::Shard>& shard, bool json) {
  if (json)
    print_dry_run_json(plan, shard);
  else
    print_dry_run_text(plan, shard);
}

}  // namespace cuzk::cli
