// Safetensors reader: F16/BF16 conversion on hand-worked values, files and sharded folders written in the HF
// layout at unaligned offsets, and every bad input refused with its message and nothing loaded.
#include "core/io/safetensors.h"
#include "safetensors_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include <sys/stat.h>

namespace attnlab
{
namespace
{

namespace fs = std::filesystem;
using test::raw_safetensors;
using test::safetensors_bytes;
using test::TestTensor;
using test::write_bytes;
using json = nlohmann::json;

// [SECTION] Conversion

TEST(Float16, HandWorkedValues)
{
    EXPECT_EQ(f16_to_float(0x3C00), 1.0f);
    EXPECT_EQ(f16_to_float(0xC000), -2.0f);
    EXPECT_EQ(f16_to_float(0x7BFF), 65504.0f);                 // largest finite half
    EXPECT_EQ(f16_to_float(0x3555), 0.333251953125f);          // 1.0101010101b x 2^-2
    EXPECT_EQ(f16_to_float(0x0400), std::ldexp(1.0f, -14));    // smallest normal
    EXPECT_EQ(f16_to_float(0x0001), std::ldexp(1.0f, -24));    // smallest subnormal
    EXPECT_EQ(f16_to_float(0x03FF), std::ldexp(1023.0f, -24)); // largest subnormal
    EXPECT_EQ(f16_to_float(0x8001), -std::ldexp(1.0f, -24));
    EXPECT_EQ(f16_to_float(0x0000), 0.0f);
    EXPECT_FALSE(std::signbit(f16_to_float(0x0000)));
    EXPECT_TRUE(std::signbit(f16_to_float(0x8000)));
    EXPECT_EQ(f16_to_float(0x7C00), std::numeric_limits<float>::infinity());
    EXPECT_EQ(f16_to_float(0xFC00), -std::numeric_limits<float>::infinity());
    EXPECT_TRUE(std::isnan(f16_to_float(0x7E00)));
    EXPECT_TRUE(std::isnan(f16_to_float(0x7C01))); // a signalling NaN stays a NaN, not infinity
    EXPECT_TRUE(std::isnan(f16_to_float(0xFE00)));
}

TEST(Float16, EveryFiniteHalfRoundTripsThroughTheIndependentEncoder)
{
    int checked = 0;
    for (std::uint32_t bits = 0; bits < 0x10000; ++bits)
    {
        const float v = f16_to_float(static_cast<std::uint16_t>(bits));
        if (std::isnan(v))
            continue;
        ASSERT_EQ(test::exact_f16(v), bits) << "half 0x" << std::hex << bits << " read as " << v;
        ++checked;
    }
    EXPECT_EQ(checked, 65536 - 2 * 1023 * 1); // every bit pattern but the NaNs (exponent 31, fraction ≠ 0)
}

TEST(BFloat16, HandWorkedValues)
{
    EXPECT_EQ(bf16_to_float(0x3F80), 1.0f);
    EXPECT_EQ(bf16_to_float(0xC000), -2.0f);
    EXPECT_EQ(bf16_to_float(0x4049), 3.140625f);
    EXPECT_EQ(bf16_to_float(0x7F7F), 3.3895313892515355e38f); // largest finite
    EXPECT_EQ(bf16_to_float(0x0001), std::ldexp(1.0f, -133)); // smallest subnormal
    EXPECT_EQ(bf16_to_float(0x7F80), std::numeric_limits<float>::infinity());
    EXPECT_TRUE(std::signbit(bf16_to_float(0x8000)));
    EXPECT_TRUE(std::isnan(bf16_to_float(0x7FC0)));
}

// [SECTION] Files

class Safetensors : public ::testing::Test
{
protected:
    void SetUp() override
    {
        dir = fs::path(ATTNLAB_BINARY_DIR) / "tests" / "io" / "safetensors" /
              ::testing::UnitTest::GetInstance()->current_test_info()->name();
        fs::remove_all(dir);
        fs::create_directories(dir);
    }
    void TearDown() override { fs::remove_all(dir); }

    std::string path(const std::string& name) const { return (dir / name).string(); }

    // Writes a bad file and checks that opening it fails with every fragment in its message and leaves the
    // index as it was.
    void expect_refused(const std::string& bytes, std::initializer_list<const char*> fragments)
    {
        const std::string file = path("bad.safetensors");
        write_bytes(file, bytes);
        SafetensorsIndex index;
        index.files = {"untouched"};
        const Status s = open_safetensors_file(file, &index);
        ASSERT_FALSE(s) << "accepted a bad file";
        for (const char* fragment : fragments)
            EXPECT_NE(s.message().find(fragment), std::string::npos)
                << "message: " << s.message() << "\nmissing: " << fragment;
        EXPECT_EQ(index.files, std::vector<std::string>{"untouched"});
        EXPECT_TRUE(index.tensors.empty());
    }

    fs::path dir;
};

std::vector<float> ramp(int n, float scale)
{
    std::vector<float> v(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
        v[static_cast<std::size_t>(i)] = static_cast<float>(i - n / 2) * scale; // exact in F16 and BF16
    return v;
}

TEST_F(Safetensors, ReadsEveryDtypeAtUnalignedOffsets)
{
    const std::vector<TestTensor> tensors = {
        {"a.f32", "F32", {2, 3}, {1.5f, -2.25f, 3.0f, 1e-30f, -7.0f, 0.1f}, ""},
        {"b.f16", "F16", {3, 2}, {1.0f, -2.0f, 65504.0f, std::ldexp(1.0f, -24), 0.5f, -0.0f}, ""},
        {"c.bf16", "BF16", {4}, {1.0f, -2.0f, 3.140625f, 256.0f}, ""},
        {"d.scalar", "F32", {}, {42.0f}, ""},
        {"e.rank3", "F16", {2, 2, 3}, ramp(12, 0.25f), ""},
        {"f.empty", "F32", {0, 4}, {}, ""},
    };
    const std::string file = path("model.safetensors");
    write_bytes(file, safetensors_bytes(tensors, json{{"format", "pt"}}, /*gap=*/3, /*header_pad=*/1));
    SafetensorsIndex index;
    ASSERT_TRUE(open_safetensors_file(file, &index));
    ASSERT_EQ(index.tensors.size(), 6u);
    EXPECT_EQ(index.metadata.at("format"), "pt");
    EXPECT_EQ(index.files, std::vector<std::string>{file});

    // Offsets are past gaps of 3 bytes after a header of odd length: at least one tensor starts unaligned.
    bool unaligned = false;
    for (const TensorInfo& t : index.tensors)
        unaligned = unaligned || (t.begin % 4 != 0 && t.end > t.begin);
    EXPECT_TRUE(unaligned);

    const TensorInfo* b = index.find("b.f16");
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->dtype, SafetensorsDtype::F16);
    EXPECT_EQ(b->shape, (std::vector<std::int64_t>{3, 2}));
    EXPECT_EQ(b->end - b->begin, 12u);
    EXPECT_EQ(index.find("nothing"), nullptr);

    for (const TestTensor& t : tensors)
    {
        Mat m;
        ASSERT_TRUE(read_tensor(index, t.name, &m)) << t.name;
        const Eigen::Index cols = t.shape.empty() ? 1 : t.shape.back();
        ASSERT_EQ(m.size(), static_cast<Eigen::Index>(t.values.size())) << t.name;
        EXPECT_EQ(m.cols(), cols) << t.name;
        for (std::size_t i = 0; i < t.values.size(); ++i)
        {
            EXPECT_EQ(m.data()[i], t.values[i]) << t.name << "[" << i << "]";
            EXPECT_EQ(std::signbit(m.data()[i]), std::signbit(t.values[i])) << t.name << "[" << i << "]";
        }
    }
    Mat rank3;
    ASSERT_TRUE(read_tensor(index, "e.rank3", &rank3));
    EXPECT_EQ(rank3.rows(), 4); // 2 x 2 leading dimensions
    EXPECT_EQ(rank3(3, 2), ramp(12, 0.25f)[11]);

    RowVec v;
    ASSERT_TRUE(read_tensor(index, "c.bf16", &v));
    EXPECT_EQ(v.size(), 4);
    EXPECT_EQ(v(2), 3.140625f);
    const Status matrix_as_vector = read_tensor(index, "a.f32", &v);
    ASSERT_FALSE(matrix_as_vector);
    EXPECT_NE(matrix_as_vector.message().find("expected a vector"), std::string::npos);
    EXPECT_EQ(v.size(), 4); // unchanged

    Mat untouched = Mat::Constant(1, 1, 7.0f);
    const Status missing = read_tensor(index, "h.0.attn.c_attn.weight", &untouched);
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.message().find("no tensor \"h.0.attn.c_attn.weight\""), std::string::npos);
    EXPECT_EQ(untouched(0, 0), 7.0f);
}

TEST_F(Safetensors, ReadsLargeTensorsOfEveryDtypeWhole)
{
    // Tensors of several MB, larger than the slices F16 and BF16 are converted in, at unaligned offsets.
    // Each value is exact in BF16 (8 significant bits) and its pattern does not repeat at the slice length,
    // so a slice written to the wrong place shows.
    constexpr int kRows = 700, kCols = 1001;
    std::vector<float> values(static_cast<std::size_t>(kRows * kCols));
    for (std::size_t i = 0; i < values.size(); ++i)
        values[i] =
            static_cast<float>(static_cast<int>(i % 251) - 125) + 0.5f * static_cast<float>((i / 251) % 2);
    const std::vector<TestTensor> tensors = {
        {"big.bf16", "BF16", {kRows, kCols}, values, ""},
        {"big.f16", "F16", {kRows, kCols}, values, ""},
        {"big.f32", "F32", {kRows, kCols}, values, ""},
    };
    const std::string file = path("model.safetensors");
    write_bytes(file, safetensors_bytes(tensors, json::object(), /*gap=*/3, /*header_pad=*/1));
    SafetensorsIndex index;
    ASSERT_TRUE(open_safetensors_file(file, &index));
    for (const TestTensor& t : tensors)
    {
        Mat m;
        ASSERT_TRUE(read_tensor(index, t.name, &m)) << t.name;
        ASSERT_EQ(m.rows(), kRows) << t.name;
        ASSERT_EQ(m.cols(), kCols) << t.name;
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < values.size(); ++i)
            wrong += m.data()[i] != values[i] ? 1 : 0;
        EXPECT_EQ(wrong, 0u) << t.name;
    }
}

TEST(PrepareTensorMemory, LeavesTheNumbersAsTheyAre)
{
    // A hint about pages: a buffer already written keeps its numbers, whatever its size and alignment.
    for (const std::size_t count : {std::size_t{10}, std::size_t{1} << 20, (std::size_t{3} << 20) + 5})
    {
        std::vector<float> buffer(count + 1);
        for (std::size_t i = 0; i < buffer.size(); ++i)
            buffer[i] = static_cast<float>(i % 1000) - 0.25f;
        const std::vector<float> before = buffer;
        prepare_tensor_memory(buffer.data() + 1, count); // not 4 KB aligned
        EXPECT_EQ(buffer, before) << count;
    }
    prepare_tensor_memory(nullptr, 0);
}

TEST_F(Safetensors, OpensTheTightlyPackedLayoutOfTheHfWriter)
{
    // No gaps, the header padded with spaces to a multiple of 8, as the safetensors library writes it.
    const std::string bytes = safetensors_bytes({{"w", "F32", {2, 2}, {1, 2, 3, 4}, ""}}, nullptr, 0, 0);
    const std::size_t header = bytes.size() - 8 - 16;
    const std::string padded =
        safetensors_bytes({{"w", "F32", {2, 2}, {1, 2, 3, 4}, ""}}, nullptr, 0, (8 - header % 8) % 8);
    write_bytes(path("model.safetensors"), padded);
    SafetensorsIndex index;
    ASSERT_TRUE(open_safetensors(dir.string(), &index)); // a folder with model.safetensors
    EXPECT_EQ(index.find("w")->begin % 8, 0u);
    Mat m;
    ASSERT_TRUE(read_tensor(index, "w", &m));
    EXPECT_EQ(m(1, 0), 3.0f);
}

TEST_F(Safetensors, OtherDtypesAreIndexedButRefusedWhenRead)
{
    TestTensor ids{"embeddings.position_ids", "I64", {1, 3}, {}, std::string(24, '\0')};
    write_bytes(path("m.safetensors"), safetensors_bytes({ids, {"w", "F32", {1}, {5.0f}, ""}}));
    SafetensorsIndex index;
    ASSERT_TRUE(open_safetensors_file(path("m.safetensors"), &index));
    ASSERT_NE(index.find("embeddings.position_ids"), nullptr);
    EXPECT_EQ(index.find("embeddings.position_ids")->dtype, SafetensorsDtype::Other);
    Mat m;
    const Status s = read_tensor(index, "embeddings.position_ids", &m);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("dtype I64"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("supported: F32, F16 and BF16"), std::string::npos) << s.message();
    ASSERT_TRUE(read_tensor(index, "w", &m));
    EXPECT_EQ(m(0, 0), 5.0f);
}

// [SECTION] Bad files

TEST_F(Safetensors, RefusesHeaderLengthsPastTheFile)
{
    expect_refused("abc", {"3 bytes, too short"});
    std::string past = raw_safetensors("{}", 0);
    past[0] = 100;
    expect_refused(past, {"header length 100", "past the end of the file (10 bytes)"});
    std::string huge = raw_safetensors("{}", 0);
    huge[7] = static_cast<char>(0x80); // 2^63 + 2
    expect_refused(huge, {"header length 9223372036854775810", "past the end of the file"});
    std::string all_ones(8, '\xFF');
    expect_refused(all_ones + "{}", {"header length 18446744073709551615"});
}

// A header length of 0 is said to be one, not "the file is empty … save it again" (of a file of 64 bytes
// more, which the program never saves).
TEST_F(Safetensors, RefusesAHeaderLengthOfZero)
{
    const std::string bytes = std::string(8, '\0') + std::string(64, 'x');
    expect_refused(bytes, {"bad.safetensors", "the header length (the first 8 bytes) is 0", "no JSON header",
                           "not a safetensors file"});
    SafetensorsIndex index;
    const Status s = open_safetensors_file(path("bad.safetensors"), &index);
    EXPECT_EQ(s.message().find("empty"), std::string::npos) << s.message();
}

TEST_F(Safetensors, RefusesAHeaderOverTheLimitWithoutReadingIt)
{
    // A sparse file: the header length fits the file but is over 100 MB.
    const std::string file = path("huge.safetensors");
    std::string bytes = raw_safetensors("{}", 0);
    const std::uint64_t length = kMaxSafetensorsHeaderBytes + 1;
    for (int i = 0; i < 8; ++i)
        bytes[static_cast<std::size_t>(i)] = static_cast<char>((length >> (8 * i)) & 0xFF);
    write_bytes(file, bytes);
    fs::resize_file(file, 8 + length);
    SafetensorsIndex index;
    const Status s = open_safetensors_file(file, &index);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("104857601 bytes is over the limit of 104857600 bytes"), std::string::npos)
        << s.message();
}

TEST_F(Safetensors, RefusesAHeaderOfTooManyTensorsBeforeParsingIt)
{
    // Empty tensors cost about 50 bytes of header each: a 100 MiB header holds two million of them.
    const auto header_of = [](std::size_t n)
    {
        std::string h = "{\"__metadata__\": {\"format\": \"pt\"}";
        for (std::size_t i = 0; i < n; ++i)
            h += ",\"t" + std::to_string(i) + "\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[0,0]}";
        return h + "}";
    };
    expect_refused(raw_safetensors(header_of(kMaxSafetensorsTensors + 1), 0),
                   {"bad.safetensors", "lists more than 100000 tensors", "damaged"});
    // At the limit, with the metadata beside it, the file opens.
    const std::string file = path("many.safetensors");
    write_bytes(file, raw_safetensors(header_of(kMaxSafetensorsTensors), 0));
    SafetensorsIndex index;
    ASSERT_TRUE(open_safetensors_file(file, &index));
    EXPECT_EQ(index.tensors.size(), kMaxSafetensorsTensors);
    // Counting stops at the limit: an unfinished header past it is refused for its count, one within it
    // for its JSON.
    const std::string over = header_of(kMaxSafetensorsTensors + 1);
    expect_refused(raw_safetensors(over.substr(0, over.size() - 5), 0), {"lists more than 100000 tensors"});
    expect_refused(raw_safetensors(header_of(3).substr(0, 100), 0), {"must be JSON"});
}

TEST_F(Safetensors, RefusesHeadersThatAreNotJsonObjects)
{
    expect_refused(raw_safetensors("{\"a\": ", 0), {"must be JSON", "bad.safetensors"});
    expect_refused(raw_safetensors("not json at all", 0), {"must be JSON"});
    expect_refused(raw_safetensors("[1, 2]", 0), {"must be a JSON object of tensors"});
    expect_refused(raw_safetensors(std::string("{\"a\"\0:1}", 8), 0), {"NUL"});
}

TEST_F(Safetensors, RefusesMissingOrWrongFields)
{
    expect_refused(raw_safetensors(R"({"w": {"shape": [1], "data_offsets": [0, 4]}})", 4),
                   {"tensor \"w\" has no \"dtype\""});
    expect_refused(raw_safetensors(R"({"w": {"dtype": "F32", "data_offsets": [0, 4]}})", 4),
                   {"tensor \"w\" has no \"shape\""});
    expect_refused(raw_safetensors(R"({"w": {"dtype": "F32", "shape": [1]}})", 4),
                   {"tensor \"w\" has no \"data_offsets\""});
    expect_refused(raw_safetensors(R"({"w": 3})", 4), {"tensor \"w\" must be an object"});
    expect_refused(raw_safetensors(R"({"w": {"dtype": 32, "shape": [1], "data_offsets": [0, 4]}})", 4),
                   {"\"dtype\" must be a string"});
    expect_refused(raw_safetensors(R"({"w": {"dtype": "F32", "shape": 1, "data_offsets": [0, 4]}})", 4),
                   {"\"shape\" must be a list of sizes"});
    expect_refused(raw_safetensors(R"({"w": {"dtype": "F32", "shape": [1.5], "data_offsets": [0, 4]}})", 4),
                   {"must be a list of whole sizes"});
    expect_refused(raw_safetensors(R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0]}})", 4),
                   {"\"data_offsets\" must be two byte offsets"});
    expect_refused(raw_safetensors(R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [-4, 0]}})", 4),
                   {"\"data_offsets\" must be two byte offsets"});
    expect_refused(raw_safetensors(R"({"__metadata__": {"format": 1}})", 0),
                   {"\"__metadata__\".\"format\" must be a string"});
    expect_refused(raw_safetensors(R"({"__metadata__": [1]})", 0), {"\"__metadata__\" must be an object"});
}

TEST_F(Safetensors, RefusesUnknownDtypesNamingTheSupportedOnes)
{
    expect_refused(raw_safetensors(R"({"w": {"dtype": "Q4_K", "shape": [1], "data_offsets": [0, 4]}})", 4),
                   {"dtype \"Q4_K\"", "supported: F32, F16 and BF16"});
}

TEST_F(Safetensors, RefusesBadShapes)
{
    expect_refused(raw_safetensors(R"({"w": {"dtype": "F32", "shape": [2, -3], "data_offsets": [0, 4]}})", 4),
                   {"tensor \"w\" has a negative size -3"});
    expect_refused(
        raw_safetensors(
            R"({"w": {"dtype": "F32", "shape": [4294967296, 4294967296], "data_offsets": [0, 4]}})", 4),
        {"overflows"});
    expect_refused(raw_safetensors(
                       R"({"w": {"dtype": "F32", "shape": [1,1,1,1,1,1,1,1,1], "data_offsets": [0, 4]}})", 4),
                   {"9 dimensions; at most 8"});
}

TEST_F(Safetensors, RefusesOffsetsOutOfRangeOverlappingOrNotMatchingTheShape)
{
    expect_refused(raw_safetensors(R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})", 4),
                   {"tensor \"w\"", "[0, 8] past the end of the data (4 bytes)"});
    expect_refused(raw_safetensors(R"({"w": {"dtype": "F32", "shape": [0], "data_offsets": [4, 0]}})", 4),
                   {"end before they begin"});
    expect_refused(raw_safetensors(R"({"w": {"dtype": "F16", "shape": [3], "data_offsets": [0, 8]}})", 8),
                   {"8 bytes of data, but its shape 3 in F16 takes 6 bytes"});
    expect_refused(raw_safetensors(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                                       "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})",
                                   12),
                   {"tensors \"a\" and \"b\" share bytes", "[0, 8] and [4, 12]"});
}

TEST_F(Safetensors, RefusesDuplicateNames)
{
    expect_refused(raw_safetensors(R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
                                       "w": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})",
                                   8),
                   {"tensor \"w\" is listed twice"});
}

TEST_F(Safetensors, RefusesFoldersFifosAndMissingFiles)
{
    SafetensorsIndex index;
    const Status folder = open_safetensors_file(dir.string(), &index);
    ASSERT_FALSE(folder);
    EXPECT_NE(folder.message().find("it is a folder"), std::string::npos) << folder.message();
    ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
    const Status fifo = open_safetensors(path("fifo"), &index);
    ASSERT_FALSE(fifo);
    EXPECT_NE(fifo.message().find("not a regular file"), std::string::npos) << fifo.message();
    const Status missing = open_safetensors(path("none.safetensors"), &index);
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.message().find("none.safetensors"), std::string::npos) << missing.message();
}

TEST_F(Safetensors, RefusesAFileCutShortAfterItWasOpened)
{
    const std::string file = path("m.safetensors");
    write_bytes(file, safetensors_bytes({{"w", "F32", {4}, {1, 2, 3, 4}, ""}}));
    SafetensorsIndex index;
    ASSERT_TRUE(open_safetensors_file(file, &index));
    fs::resize_file(file, fs::file_size(file) - 2);
    RowVec v = RowVec::Constant(1, 9.0f);
    const Status s = read_tensor(index, "w", &v);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("changed since it was opened"), std::string::npos) << s.message();
    EXPECT_EQ(v.size(), 1);
}

TEST_F(Safetensors, RefusesReadingATensorOverTheElementLimit)
{
    // A sparse file holding one F16 tensor of 2^28 + 8 elements: indexed, refused when read.
    const std::uint64_t n = kMaxTensorElements + 8;
    const std::string header = "{\"big\":{\"dtype\":\"F16\",\"shape\":[" + std::to_string(n) +
                               "],\"data_offsets\":[0," + std::to_string(2 * n) + "]}}";
    const std::string file = path("big.safetensors");
    write_bytes(file, raw_safetensors(header, 0));
    fs::resize_file(file, 8 + header.size() + 2 * n);
    SafetensorsIndex index;
    ASSERT_TRUE(open_safetensors_file(file, &index));
    Mat m;
    const Status s = read_tensor(index, "big", &m);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("over the limit of 268435456"), std::string::npos) << s.message();
}

// [SECTION] Folders

class SafetensorsFolder : public Safetensors
{
protected:
    // Two shards and their index, as save_pretrained(max_shard_size=...) writes them.
    void write_sharded(const json& weight_map)
    {
        write_bytes(path("model-00001-of-00002.safetensors"),
                    safetensors_bytes({{"wte.weight", "F16", {2, 2}, {1, 2, 3, 4}, ""},
                                       {"h.0.ln_1.weight", "F32", {2}, {0.5f, 0.25f}, ""}},
                                      json{{"format", "pt"}}, 1));
        write_bytes(path("model-00002-of-00002.safetensors"),
                    safetensors_bytes(
                        {{"ln_f.weight", "BF16", {2}, {-2.0f, 8.0f}, ""}, {"extra", "F32", {1}, {1.0f}, ""}},
                        nullptr, 3));
        write_bytes(path("model.safetensors.index.json"),
                    json{{"metadata", {{"total_size", 20}}}, {"weight_map", weight_map}}.dump(2));
    }
    static json good_map()
    {
        return {{"wte.weight", "model-00001-of-00002.safetensors"},
                {"h.0.ln_1.weight", "model-00001-of-00002.safetensors"},
                {"ln_f.weight", "model-00002-of-00002.safetensors"}};
    }
    void expect_folder_refused(std::initializer_list<const char*> fragments)
    {
        SafetensorsIndex index;
        index.files = {"untouched"};
        const Status s = open_safetensors(dir.string(), &index);
        ASSERT_FALSE(s);
        for (const char* fragment : fragments)
            EXPECT_NE(s.message().find(fragment), std::string::npos)
                << "message: " << s.message() << "\nmissing: " << fragment;
        EXPECT_EQ(index.files, std::vector<std::string>{"untouched"});
    }
};

TEST_F(SafetensorsFolder, ReadsTensorsFromEveryShard)
{
    write_sharded(good_map());
    SafetensorsIndex index;
    ASSERT_TRUE(open_safetensors(dir.string(), &index));
    ASSERT_EQ(index.tensors.size(), 3u); // "extra" is in a shard but not in the map
    EXPECT_EQ(index.find("extra"), nullptr);
    EXPECT_EQ(index.files.size(), 2u);
    EXPECT_EQ(index.metadata.at("format"), "pt");
    Mat m;
    ASSERT_TRUE(read_tensor(index, "wte.weight", &m));
    EXPECT_EQ(m(1, 1), 4.0f);
    RowVec v;
    ASSERT_TRUE(read_tensor(index, "ln_f.weight", &v));
    EXPECT_EQ(v(0), -2.0f);
    EXPECT_EQ(v(1), 8.0f);
    EXPECT_NE(index.find("ln_f.weight")->file.find("model-00002-of-00002"), std::string::npos);
}

TEST_F(SafetensorsFolder, RefusesAMissingShard)
{
    json map = good_map();
    map["h.1.ln_1.weight"] = "model-00003-of-00003.safetensors";
    write_sharded(map);
    expect_folder_refused(
        {"shard \"model-00003-of-00003.safetensors\" is missing", "h.1.ln_1.weight", "download every shard"});
}

TEST_F(SafetensorsFolder, RefusesATensorMissingFromItsShard)
{
    json map = good_map();
    map["h.0.ln_2.weight"] = "model-00002-of-00002.safetensors";
    write_sharded(map);
    expect_folder_refused(
        {"names tensor \"h.0.ln_2.weight\" in the shard \"model-00002-of-00002.safetensors\"",
         "has no tensor of that name"});
}

TEST_F(SafetensorsFolder, RefusesABadIndex)
{
    write_sharded(good_map());
    write_bytes(path("model.safetensors.index.json"), "{\"weight_map\": ");
    expect_folder_refused({"model.safetensors.index.json", "incomplete"});
    write_bytes(path("model.safetensors.index.json"), R"({"metadata": {}})");
    expect_folder_refused({"\"weight_map\" must be an object"});
    write_bytes(path("model.safetensors.index.json"), R"({"weight_map": {"w": "../elsewhere.safetensors"}})");
    expect_folder_refused({"must be the file name of a shard in the same folder"});
    write_bytes(path("model.safetensors.index.json"),
                R"({"weight_map": {"wte.weight": "model-00001-of-00002.safetensors",
                                   "wte.weight": "model-00002-of-00002.safetensors"}})");
    expect_folder_refused({"tensor \"wte.weight\" is named twice"});
    // An empty map has no weights to read (it used to open, then fail on the first tensor the model wants).
    write_bytes(path("model.safetensors.index.json"), R"({"metadata": {}, "weight_map": {}})");
    expect_folder_refused({"\"weight_map\" names no tensor", "download it again"});
    // A map naming a file that is not a shard (it used to be opened and blamed for its header).
    write_bytes(path("config.json"), R"({"model_type": "gpt2"})");
    write_bytes(path("model.safetensors.index.json"), R"({"weight_map": {"wte.weight": "config.json"}})");
    expect_folder_refused({"\"weight_map\".\"wte.weight\" names \"config.json\"", "not a .safetensors file"});
    // A NUL byte would end the name where the OS reads it ("config.json\0.safetensors" opened config.json).
    write_bytes(path("model.safetensors.index.json"),
                R"({"weight_map": {"wte.weight": "config.json\u0000.safetensors"}})");
    expect_folder_refused({"must be the file name of a shard in the same folder"});
    // A repeat elsewhere in the index is refused too: a second "weight_map" used to win silently, and a
    // repeat in "metadata" hid one in "weight_map" (only the first repeat is recorded).
    write_bytes(path("model.safetensors.index.json"),
                R"({"weight_map": {"wte.weight": "model-00001-of-00002.safetensors"},
                    "weight_map": {"w": "model-00002-of-00002.safetensors"}})");
    expect_folder_refused({"the key \"weight_map\" is given twice", "download it again"});
    write_bytes(path("model.safetensors.index.json"),
                R"({"metadata": {"x": 1, "x": 2},
                    "weight_map": {"wte.weight": "model-00001-of-00002.safetensors",
                                   "wte.weight": "model-00002-of-00002.safetensors"}})");
    expect_folder_refused({"the key \"x\" is given twice in \"metadata\""});
}

// A shard that is a link looping or leading nowhere is named with the OS's reason, not as "missing".
TEST_F(SafetensorsFolder, ABrokenShardLinkSaysWhy)
{
    write_sharded(good_map());
    fs::remove(path("model-00002-of-00002.safetensors"));
    fs::create_symlink(path("model-00002-of-00002.safetensors"), path("model-00002-of-00002.safetensors"));
    expect_folder_refused({"model-00002-of-00002.safetensors", "Too many levels of symbolic links"});
    fs::remove(path("model-00002-of-00002.safetensors"));
    fs::create_symlink(path("nowhere.safetensors"), path("model-00002-of-00002.safetensors"));
    expect_folder_refused({"model-00002-of-00002.safetensors", "No such file or directory"});
}

// The tensor limit is the model's: shards that each list fewer than kMaxSafetensorsTensors (here the same
// file, linked under several names) but more in all are refused, before the memory of their lists grows on.
TEST_F(SafetensorsFolder, TheTensorLimitCountsEveryShard)
{
    std::vector<TestTensor> many;
    for (int i = 0; i < 40000; ++i)
        many.push_back({"t" + std::to_string(i), "F32", {0}, {}, ""});
    write_bytes(path("bulk.safetensors"), safetensors_bytes(many, nullptr, 0));
    json map = json::object();
    for (int k = 0; k < 3; ++k)
    {
        const std::string name = "bulk-" + std::to_string(k) + ".safetensors";
        fs::create_symlink(path("bulk.safetensors"), path(name));
        map["t" + std::to_string(k)] = name;
    }
    write_bytes(path("model.safetensors.index.json"), json{{"weight_map", map}}.dump());
    expect_folder_refused({"3 shards list more than 100000 tensors in all"});
    // Two of them (80,000 tensors) are within it.
    map.erase("t2");
    write_bytes(path("model.safetensors.index.json"), json{{"weight_map", map}}.dump());
    SafetensorsIndex index;
    ASSERT_TRUE(open_safetensors(dir.string(), &index));
    EXPECT_EQ(index.tensors.size(), 2u);
}

TEST_F(SafetensorsFolder, ABadShardIsNamed)
{
    write_sharded(good_map());
    write_bytes(path("model-00002-of-00002.safetensors"), raw_safetensors("{", 0));
    expect_folder_refused({"model-00002-of-00002.safetensors", "must be JSON"});
}

TEST_F(SafetensorsFolder, SaysHowToConvertAPytorchOnlyFolder)
{
    write_bytes(path("pytorch_model.bin"), "PK");
    expect_folder_refused({"pytorch_model.bin", "Convert it to safetensors", "safe_serialization=True"});
    fs::remove(path("pytorch_model.bin"));
    expect_folder_refused({"no model.safetensors"});
}

// With both model.safetensors and an index (left from an earlier sharded download), the single file is read,
// as transformers' from_pretrained reads it.
TEST_F(SafetensorsFolder, TheSingleFileWinsOverAStaleIndex)
{
    write_sharded(good_map());
    write_bytes(path("model.safetensors"), safetensors_bytes({{"only.weight", "F32", {1}, {7.0f}, ""}}));
    SafetensorsIndex index;
    ASSERT_TRUE(open_safetensors(dir.string(), &index));
    ASSERT_EQ(index.tensors.size(), 1u);
    EXPECT_EQ(index.tensors[0].name, "only.weight");
    EXPECT_EQ(index.files, std::vector<std::string>{path("model.safetensors")});
    // Without it the shards are read again.
    fs::remove(path("model.safetensors"));
    ASSERT_TRUE(open_safetensors(dir.string(), &index));
    EXPECT_EQ(index.tensors.size(), 3u);
}

// A model.safetensors that is a link leading nowhere is named as such, not as absent (the user can see it).
TEST_F(SafetensorsFolder, ABrokenLinkIsNamedNotMissing)
{
    fs::create_symlink("nowhere.safetensors", path("model.safetensors"));
    expect_folder_refused({"model.safetensors", "No such file"});
    fs::remove(path("model.safetensors"));
    fs::create_symlink("model.safetensors", path("model.safetensors"));
    expect_folder_refused({"model.safetensors", "symbolic links"});
    fs::remove(path("model.safetensors"));
    fs::create_symlink("nowhere.json", path("model.safetensors.index.json"));
    expect_folder_refused({"model.safetensors.index.json"});
    SafetensorsIndex index;
    const Status s = open_safetensors(dir.string(), &index);
    EXPECT_EQ(s.message().find("no model.safetensors"), std::string::npos) << s.message();
}

} // namespace
} // namespace attnlab
