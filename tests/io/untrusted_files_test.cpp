// Hostile and careless files: deep nesting, NUL bytes, devices, FIFOs, huge files, planted links, two writers
// to one path, and messages that quote a file's content. Each case is refused with a message or written
// safely, and nothing crashes.
#include "core/io/atomic_file.h"
#include "core/io/json_io.h"
#include "core/io/json_parse.h"
#include "core/io/lesson_file.h"
#include "core/io/session_file.h"
#include "core/tokenizer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

namespace attnlab
{
namespace
{

namespace fs = std::filesystem;

class UntrustedFiles : public ::testing::Test
{
protected:
    void SetUp() override
    {
        dir = fs::path(ATTNLAB_BINARY_DIR) / "tests" / "io" / "untrusted" /
              ::testing::UnitTest::GetInstance()->current_test_info()->name();
        fs::remove_all(dir);
        fs::create_directories(dir);
    }
    void TearDown() override { fs::remove_all(dir); }

    std::string path(const char* name) const { return (dir / name).string(); }
    static std::string read(const std::string& p)
    {
        std::ifstream in(p, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
    }
    // The files in dir, except those named.
    std::vector<std::string> listing() const
    {
        std::vector<std::string> names;
        for (const auto& e : fs::directory_iterator(dir))
            names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    }

    fs::path dir;
};

std::string nested(std::size_t depth)
{
    return std::string(depth, '[') + std::string(depth, ']');
}

TEST_F(UntrustedFiles, DeeplyNestedJsonIsRefusedByEveryLoader)
{
    // 100,000 levels overflowed the stack of nlohmann's recursive dump and copies; now the parser stops at
    // kMaxJsonDepth. Each loader gets it as the whole file and inside a field it reads.
    const std::string deep = nested(100000);
    const std::string in_field = "{\"format\": \"attnlab-session\", \"version\": 1, \"text\": " + deep + "}";
    for (const std::string& text : {deep, in_field})
    {
        Session session;
        Status s = session_from_json(text, "deep.json", &session);
        ASSERT_FALSE(s);
        EXPECT_NE(s.message().find("nested more than"), std::string::npos) << s.message();

        ModelWeights weights;
        s = parse_weights_json(text, "deep.json", Config{}, &weights);
        ASSERT_FALSE(s);
        EXPECT_NE(s.message().find("nested more than"), std::string::npos) << s.message();
        s = parse_torch_weights_json(text, "deep.json", Config{}, &weights);
        ASSERT_FALSE(s);
        EXPECT_NE(s.message().find("nested more than"), std::string::npos) << s.message();

        Lesson lesson;
        s = parse_lesson(text, "deep.json", &lesson);
        ASSERT_FALSE(s);
        EXPECT_NE(s.message().find("nested more than"), std::string::npos) << s.message();
    }
    // Just within the bound is parsed (and then refused for what it is, not for its depth).
    nlohmann::json j;
    EXPECT_TRUE(parse_json_text(nested(kMaxJsonDepth), &j));
    EXPECT_FALSE(parse_json_text(nested(kMaxJsonDepth + 1), &j));
}

TEST_F(UntrustedFiles, ANulByteIsRefusedNotATruncatedRead)
{
    std::string text = "{\"format\": \"attnlab-session\", \"version\": 1, \"text\": \"a b\"}";
    text.insert(text.size() - 1, std::string("\0garbage", 8));
    Session session;
    const Status s = session_from_json(text, "nul.json", &session);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("NUL byte"), std::string::npos) << s.message();
    Lesson lesson;
    EXPECT_FALSE(parse_lesson(text, "nul.json", &lesson));
}

TEST_F(UntrustedFiles, DevicesFifosAndFoldersAreNotRead)
{
    std::string text;
    Status s = read_file("/dev/zero", &text, kMaxWeightsFileBytes, "weights file");
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("not a regular file"), std::string::npos) << s.message();

    const std::string fifo = path("fifo.json");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    s = read_file(fifo, &text, kMaxSessionFileBytes, "session file"); // must return at once, not wait
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("not a regular file"), std::string::npos) << s.message();

    s = read_file(dir.string(), &text);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("folder"), std::string::npos) << s.message();

    // Through the loaders: a session whose weights are /dev/zero, a weights file that is a FIFO.
    ModelWeights weights;
    s = load_any_weights_file("/dev/zero", Config{}, &weights);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("not a regular file"), std::string::npos) << s.message();
    Session session;
    EXPECT_FALSE(load_session_file(fifo, &session));
}

TEST_F(UntrustedFiles, AFileOverItsLimitIsRefusedBeforeReading)
{
    const std::string big = path("big.json");
    {
        std::ofstream out(big);
        out << std::string(1 << 20, ' ');
    }
    // A sparse file as large as the weights limit plus one byte: refused from its size alone.
    ASSERT_EQ(::truncate(big.c_str(), static_cast<off_t>(kMaxWeightsFileBytes + 1)), 0);
    ModelWeights weights;
    const Status s = load_any_weights_file(big, Config{}, &weights);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("over the 268.4 MB limit for a weights file"), std::string::npos)
        << s.message();

    ASSERT_EQ(::truncate(big.c_str(), static_cast<off_t>(kMaxSessionFileBytes + 1)), 0);
    Session session;
    const Status t = load_session_file(big, &session);
    ASSERT_FALSE(t);
    EXPECT_NE(t.message().find("limit for a session file"), std::string::npos) << t.message();
}

TEST_F(UntrustedFiles, ALinkPlantedAtTheOldTemporaryNameIsNotFollowed)
{
    const std::string victim = path("victim.txt");
    std::ofstream(victim) << "precious";
    fs::create_symlink(victim, path("out.json.tmp"));
    ASSERT_TRUE(write_file_atomically(path("out.json"), "{}"));
    EXPECT_EQ(read(victim), "precious");
    EXPECT_EQ(read(path("out.json")), "{}");
    EXPECT_TRUE(fs::is_symlink(path("out.json.tmp")));
}

// A file the user names (-o link.json) is written through its link: the file it points to gets the new
// content and the link stays (what README.md says of -o).
TEST_F(UntrustedFiles, AUsersLinkIsWrittenThroughAndKept)
{
    fs::create_directories(dir / "elsewhere");
    const std::string target = (dir / "elsewhere" / "real.json").string();
    std::ofstream(target) << "old";
    fs::create_symlink(target, path("link.json"));
    ASSERT_TRUE(write_file_atomically(path("link.json"), "{}"));
    EXPECT_TRUE(fs::is_symlink(path("link.json")));
    EXPECT_EQ(read(target), "{}");
}

// The app's own files (OutputKind::OwnFile) are never written through what stands at their name: a link is
// replaced by the new file (its target keeps its bytes), and so are a FIFO and a link to a device.
TEST_F(UntrustedFiles, AnOwnFileReplacesALinkOrAFifoAtItsName)
{
    const std::string victim = path("victim.txt");
    std::ofstream(victim) << "precious";
    fs::create_symlink(victim, path("last_session.json"));
    ASSERT_TRUE(write_file_atomically(path("last_session.json"), "{}", OutputKind::OwnFile));
    EXPECT_EQ(read(victim), "precious");
    EXPECT_FALSE(fs::is_symlink(path("last_session.json")));
    EXPECT_TRUE(fs::is_regular_file(path("last_session.json")));
    EXPECT_EQ(read(path("last_session.json")), "{}");

    // A dangling link, a link to /dev/null and a FIFO nobody reads: each becomes the new regular file.
    fs::create_symlink(path("nowhere"), path("a.ini"));
    fs::create_symlink("/dev/null", path("b.ini"));
    ASSERT_EQ(::mkfifo(path("c.ini").c_str(), 0600), 0);
    for (const char* name : {"a.ini", "b.ini", "c.ini"})
    {
        AtomicFile file;
        ASSERT_TRUE(file.open(path(name), OutputKind::OwnFile)) << name;
        file.write("x = 1\n");
        ASSERT_TRUE(file.commit()) << name;
        struct stat st = {};
        ASSERT_EQ(::lstat(path(name).c_str(), &st), 0);
        EXPECT_TRUE(S_ISREG(st.st_mode)) << name;
        EXPECT_EQ(read(path(name)), "x = 1\n") << name;
    }
    EXPECT_FALSE(fs::exists(path("nowhere")));

    // A folder at the name is still refused.
    fs::create_directories(dir / "d.ini");
    EXPECT_FALSE(write_file_atomically(path("d.ini"), "x", OutputKind::OwnFile));
}

TEST_F(UntrustedFiles, AFailedWriteLeavesTheUsersOwnTmpFileAlone)
{
    // "x.tmp" is the user's file; a write to "x" that fails must neither delete nor change it.
    std::ofstream(path("x.tmp")) << "mine";
    {
        AtomicFile file;
        ASSERT_TRUE(file.open(path("x")));
        file.write("half");
    } // never committed: the temporary file goes, "x" never appears
    EXPECT_EQ(read(path("x.tmp")), "mine");
    EXPECT_FALSE(fs::exists(path("x")));
    EXPECT_EQ(listing(), std::vector<std::string>{"x.tmp"});
}

TEST_F(UntrustedFiles, TwoWritersToOnePathEachLeaveACompleteFile)
{
    const std::string target = path("shared.json");
    const std::string a = "{\"writer\": \"a\", \"pad\": \"" + std::string(3 << 20, 'a') + "\"}";
    const std::string b = "{\"writer\": \"b\", \"pad\": \"" + std::string(2 << 20, 'b') + "\"}";
    AtomicFile fa, fb;
    ASSERT_TRUE(fa.open(target));
    ASSERT_TRUE(fb.open(target));
    fa.write(a);
    fb.write(b);
    std::thread ta([&] { EXPECT_TRUE(fa.commit()); });
    std::thread tb([&] { EXPECT_TRUE(fb.commit()); });
    ta.join();
    tb.join();
    const std::string result = read(target);
    EXPECT_TRUE(result == a || result == b) << "a mix of both writers, " << result.size() << " bytes";
    EXPECT_EQ(listing(), std::vector<std::string>{"shared.json"}); // no temporary file left
}

TEST_F(UntrustedFiles, DevicesAreWrittenInPlaceNeverReplaced)
{
    struct stat before = {}, after = {};
    ASSERT_EQ(::stat("/dev/null", &before), 0);
    ASSERT_TRUE(write_file_atomically("/dev/null", "discarded"));
    ASSERT_EQ(::stat("/dev/null", &after), 0);
    EXPECT_TRUE(S_ISCHR(after.st_mode));
    EXPECT_EQ(after.st_rdev, before.st_rdev);
    EXPECT_EQ(after.st_ino, before.st_ino);

    // A FIFO nobody reads is an error at once, not a hang and not a regular file in its place.
    const std::string fifo = path("fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const Status s = write_file_atomically(fifo, "x");
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("no program is reading"), std::string::npos) << s.message();
    struct stat st = {};
    ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode));

    const Status folder = write_file_atomically(dir.string(), "x");
    ASSERT_FALSE(folder);
    EXPECT_NE(folder.message().find("folder"), std::string::npos) << folder.message();
}

// A failed write says which of the usual causes it was and what to do, and leaves nothing behind.
TEST_F(UntrustedFiles, AFailedWriteSaysWhyAndWhatToDo)
{
    auto failure = [](const std::string& target)
    {
        const Status s = write_file_atomically(target, "{}");
        EXPECT_FALSE(s) << target;
        EXPECT_NE(s.message().find("cannot write " + target), std::string::npos) << s.message();
        return s.message();
    };
    auto has = [](const std::string& message, const std::string& part)
    { return message.find(part) != std::string::npos; };

    const std::string missing = failure(path("no-such-folder/x.json"));
    EXPECT_TRUE(has(missing, "the folder " + path("no-such-folder") + " does not exist")) << missing;
    EXPECT_TRUE(has(missing, "pick another folder")) << missing;

    // /proc is there but takes no new file: the system answers "No such file or directory".
    const std::string system = failure("/proc/attnlab-cannot-write-here.json");
    EXPECT_TRUE(has(system, "the folder /proc cannot be written")) << system;
    EXPECT_FALSE(has(system, "does not exist")) << system;
    EXPECT_TRUE(has(system, "pick another folder")) << system;

    std::ofstream(path("plain.txt")) << "a file";
    const std::string not_folder = failure(path("plain.txt/x.json"));
    EXPECT_TRUE(has(not_folder, "is a file, not a folder")) << not_folder;

    const std::string folder = failure(dir.string());
    EXPECT_TRUE(has(folder, "it is a folder; give a file name")) << folder;

    // /dev/full fails every write with ENOSPC, as a full disk does.
    const std::string full = failure("/dev/full");
    EXPECT_TRUE(has(full, "the disk is full")) << full;

    // A folder without write permission (root may write anywhere, so only an ordinary user sees this).
    const fs::path locked = dir / "locked";
    fs::create_directories(locked);
    ASSERT_EQ(::chmod(locked.c_str(), 0555), 0);
    if (::geteuid() != 0)
    {
        const std::string denied = failure((locked / "x.json").string());
        EXPECT_TRUE(has(denied, "the folder " + locked.string() + " cannot be written")) << denied;
        EXPECT_TRUE(has(denied, "no permission")) << denied;
    }
    ::chmod(locked.c_str(), 0755);
    EXPECT_EQ(listing(), (std::vector<std::string>{"locked", "plain.txt"})); // no temporary file left
}

TEST_F(UntrustedFiles, ANewFileGetsTheUsualPermissionsAndAReplacedOneKeepsItsOwn)
{
    const mode_t mask = ::umask(022);
    ASSERT_TRUE(write_file_atomically(path("new.json"), "{}"));
    struct stat st = {};
    ASSERT_EQ(::stat(path("new.json").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0644u);
    ASSERT_EQ(::chmod(path("new.json").c_str(), 0640), 0);
    ASSERT_TRUE(write_file_atomically(path("new.json"), "{ }"));
    ASSERT_EQ(::stat(path("new.json").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0640u);
    ::umask(mask);
}

TEST_F(UntrustedFiles, MessagesQuotingAFileAreShortAndEscaped)
{
    // A seed of 500,000 digits quoted whole made a 4 MB error line; a text with terminal escapes reached
    // the terminal raw.
    const std::string seed = "{\"format\": \"attnlab-session\", \"version\": 1, \"config\": {\"seed\": [" +
                             std::string(500000, '1') + "]}}";
    Session session;
    Status s = session_from_json(seed, "seed.json", &session);
    ASSERT_FALSE(s);
    EXPECT_LT(s.message().size(), 300u) << s.message().substr(0, 300);
    EXPECT_NE(s.message().find("seed"), std::string::npos) << s.message();

    // Raw escape bytes in a string: nlohmann's own message quotes the bytes it last read.
    const std::string escape = "{\"format\": \"\x1b]0;pwned\x07\x1b[2J\", \"version\": 1}";
    s = session_from_json(escape, "escape.json", &session);
    ASSERT_FALSE(s);
    for (char c : s.message())
        EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') << s.message();
}

TEST(Messages, PrintableMessageEscapesCutsAndIsStable)
{
    EXPECT_EQ(printable_message("a\x1b[31mred\x07\n\tok"), "a\\x1b[31mred\\x07\n\tok");
    EXPECT_EQ(printable_message("csi \xc2\x9b"
                                "2J"),
              "csi \\u009b2J"); // the one-byte C1 CSI, in UTF-8
    EXPECT_EQ(printable_message("√d_k and «é»"), "√d_k and «é»");
    // Bytes of no UTF-8 character are escaped one by one; whole characters of 2, 3 and 4 bytes are kept.
    EXPECT_EQ(printable_message("a\xff b\xc3 c\xe2\x88 d\xc0\xaf e\xed\xa0\x80 f\xf4\x90\x80\x80"),
              "a\\xff b\\xc3 c\\xe2\\x88 d\\xc0\\xaf e\\xed\\xa0\\x80 f\\xf4\\x90\\x80\\x80");
    EXPECT_EQ(printable_message("é √ 日 \xF0\x9F\x98\x80 \xf4\x8f\xbf\xbf"),
              "é √ 日 \xF0\x9F\x98\x80 \xf4\x8f\xbf\xbf");
    EXPECT_EQ(invalid_utf8_offset(printable_message("x\xfe\xc3\xa9\x80")), std::string::npos);
    EXPECT_EQ(printable_message(printable_message("x\xfe")), printable_message("x\xfe"));
    const std::string long_text(100000, 'x');
    const std::string cut = printable_message(long_text);
    EXPECT_LE(cut.size(), kMaxMessageBytes);
    EXPECT_NE(cut.find("more bytes)"), std::string::npos);
    EXPECT_EQ(printable_message(cut), cut);
    EXPECT_EQ(Status::error(long_text).message(), cut);
    // A cut never splits a UTF-8 character.
    std::string accents;
    for (int i = 0; i < 3000; ++i)
        accents += "é";
    const std::string cut_accents = printable_message(accents);
    EXPECT_EQ(cut_accents.substr(0, 2), "é");
    const std::size_t note = cut_accents.find("…");
    ASSERT_NE(note, std::string::npos);
    EXPECT_EQ(note % 2, 0u);
}

TEST(Messages, NumbersKeepTheirMagnitude)
{
    EXPECT_EQ(format_number(1e-9), "1e-09");
    EXPECT_EQ(format_number(0.5), "0.5");
    EXPECT_EQ(format_number(100.0), "100");
    Config c;
    c.temperature = 1e-9f;
    const Status s = validate_config(c);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("got 1e-09"), std::string::npos) << s.message();
}

} // namespace
// A very long path is cut in its middle: the message keeps its start, its end and the reason after it.
TEST(Messages, ALongPathIsCutAndTheReasonKept)
{
    std::string path = "/nonexistent/";
    for (int i = 0; i < 500; ++i)
        path += "folder_é/";
    path += "weights.json";
    ASSERT_GT(path.size(), 5000u);
    std::string text;
    const Status s = read_file(path, &text, kMaxWeightsFileBytes, "weights file");
    ASSERT_FALSE(s.is_ok());
    EXPECT_LT(s.message().size(), 400u) << s.message();
    EXPECT_EQ(s.message().rfind("cannot read /nonexistent/folder_é/", 0), 0u) << s.message();
    EXPECT_NE(s.message().find("bytes of the path left out"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("/weights.json: "), std::string::npos) << s.message();
    EXPECT_EQ(s.message().find("more bytes)"), std::string::npos) << "the reason is not cut away";
    Session session;
    const Status loaded = load_session_file(path, &session);
    EXPECT_NE(loaded.message().find("/weights.json: "), std::string::npos) << loaded.message();
}

} // namespace attnlab
