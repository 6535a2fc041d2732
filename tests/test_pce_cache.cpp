// pce/cache: load_or_build (build once, then load; invalid caches rebuilt or refused) and the default
// cache directory.
#include "tests/pce_test_support.hpp"

namespace cuzk::pce {
namespace {

TEST(PceCache, BuildsOnceThenLoads) {
  io::TempDir dir("cuzk_pce_");
  const CacheKey key{"demo", kDemoDescription};
  int builds = 0;
  auto build = [&] {
    ++builds;
    return compact(groth16::make_demo_circuit().cs);
  };
  const fs::path cache_dir = dir.path() / "nested" / "pce";  // created on demand
  LoadResult first = load_or_build(cache_dir, key, build);
  EXPECT_TRUE(first.built);
  EXPECT_EQ(first.path, cache_dir / "demo.pce");
  EXPECT_TRUE(fs::exists(first.path));
  LoadResult second = load_or_build(cache_dir, key, build);
  EXPECT_FALSE(second.built);
  EXPECT_TRUE(second.rebuild_reason.empty());
  EXPECT_EQ(builds, 1);
  EXPECT_EQ(second.pce, first.pce);
  // Read-only use of a valid cache is fine.
  EXPECT_FALSE(load_or_build(cache_dir, key, build, /*readonly=*/true).built);
  EXPECT_EQ(builds, 1);
}

TEST(PceCache, InvalidCachesAreRebuiltOrRefusedWhenReadonly) {
  io::TempDir dir("cuzk_pce_");
  int builds = 0;
  auto build = [&] {
    ++builds;
    return compact(groth16::make_demo_circuit().cs);
  };
  const CacheKey key{"demo", kDemoDescription};
  const fs::path path = cache_path(dir.path(), key);
  load_or_build(dir.path(), key, build);
  const std::vector<std::uint8_t> good = read_bytes(path);

  struct Damage {
    const char* what;
    std::function<void()> apply;
  };
  const CompactR1cs other_pce = compact(groth16::make_demo_circuit(std::vector<Fr>{Fr::from_u64(2)}, 3).cs);
  const std::vector<Damage> damages = {
      {"flipped body byte",
       [&] {
         auto b = good;
         b[b.size() / 2] ^= 0x10;
         write_bytes(path, b);
       }},
      {"truncated", [&] { write_bytes(path, std::span<const std::uint8_t>(good.data(), good.size() - 5)); }},
      {"other version",
       [&] {
         auto b = good;
         b[8] = 7;
         write_bytes(path, b);
       }},
      {"other circuit", [&] { write_cache_file(path, other_pce, "demo circuit v0"); }},
  };
  for (const Damage& d : damages) {
    SCOPED_TRACE(d.what);
    d.apply();
    try {
      load_or_build(dir.path(), key, build, /*readonly=*/true);
      ADD_FAILURE() << "readonly must refuse a bad cache";
    } catch (const PceError& e) {
      EXPECT_EQ(e.kind(), PceErrorKind::kReadonly);
      EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
    }
    const int before = builds;
    LoadResult r = load_or_build(dir.path(), key, build);
    EXPECT_TRUE(r.built);
    EXPECT_EQ(builds, before + 1);
    EXPECT_FALSE(r.rebuild_reason.empty());
    EXPECT_EQ(read_bytes(path), good) << "the rebuilt file is the original again";
  }
  fs::remove(path);
  try {
    load_or_build(dir.path(), key, build, /*readonly=*/true);
    ADD_FAILURE() << "readonly must refuse to build a missing cache";
  } catch (const PceError& e) {
    EXPECT_EQ(e.kind(), PceErrorKind::kReadonly);
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST(PceCache, DirectoryFollowsTheFlagThenTheEnvironmentThenTheParameters) {
  const char* saved_pce = std::getenv("CUZK_PCE_CACHE");
  const char* saved_params = std::getenv("FIL_PROOFS_PARAMETER_CACHE");
  const std::optional<std::string> old_pce = saved_pce ? std::optional<std::string>(saved_pce) : std::nullopt;
  const std::optional<std::string> old_params =
      saved_params ? std::optional<std::string>(saved_params) : std::nullopt;
  ::unsetenv("CUZK_PCE_CACHE");
  ::unsetenv("FIL_PROOFS_PARAMETER_CACHE");
  EXPECT_EQ(default_cache_dir(), fs::path("/var/tmp/filecoin-proof-parameters/pce"));
  ::setenv("FIL_PROOFS_PARAMETER_CACHE", "/srv/params", 1);
  EXPECT_EQ(default_cache_dir(), fs::path("/srv/params/pce"));
  // The one rule of prove, bench and pce build: the flag, else CUZK_PCE_CACHE, else <params dir>/pce.
  EXPECT_EQ(cache_dir("", "/run/params"), fs::path("/run/params/pce"));
  EXPECT_EQ(cache_dir("/flag/dir", "/run/params"), fs::path("/flag/dir"));
  ::setenv("CUZK_PCE_CACHE", "/fast/pce-cache", 1);
  EXPECT_EQ(default_cache_dir(), fs::path("/fast/pce-cache"));
  EXPECT_EQ(cache_dir("", "/run/params"), fs::path("/fast/pce-cache"));
  EXPECT_EQ(cache_dir("/flag/dir", "/run/params"), fs::path("/flag/dir"));
  if (old_pce)
    ::setenv("CUZK_PCE_CACHE", old_pce->c_str(), 1);
  else
    ::unsetenv("CUZK_PCE_CACHE");
  if (old_params)
    ::setenv("FIL_PROOFS_PARAMETER_CACHE", old_params->c_str(), 1);
  else
    ::unsetenv("FIL_PROOFS_PARAMETER_CACHE");
  EXPECT_THROW(cache_path("/tmp", CacheKey{"../escape", "x"}), PceError);
  EXPECT_THROW(cache_path("/tmp", CacheKey{"", "x"}), PceError);
}

}  // namespace
}  // namespace cuzk::pce
