#pragma once
// A small HTTP/1.1 (and HTTPS) server on loopback for download tests, with faults on demand:
// ranges and If-Range, a mode that ignores ranges, connections cut mid-body, stalls, error
// statuses with Retry-After, redirects, and a log of every request.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace zcuda::test {

struct HttpRequest {
  std::string method;
  std::string target;
  std::map<std::string, std::string> headers;  // names in lowercase
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

// What the server holds at a path.
struct HttpResource {
  std::string body{};
  std::string etag{};                        // sent as ETag when not empty
  std::string last_modified{};               // sent as Last-Modified when not empty
  bool ranges = true;                        // false: ignore Range and always send the whole body with 200
  bool content_length = true;                // false: no Content-Length; the body ends when the connection closes
  std::size_t chunk = 0;                     // > 0: send the body in pieces of this many bytes...
  std::chrono::milliseconds chunk_delay{0};  // ...with this pause between pieces
  std::string content_type{};                // sent as Content-Type when not empty (pip reads a simple index only as text/html)
};

// A one-off misbehaviour, used up by the next request for its path.
struct HttpFault {
  int status = 0;  // answer with this status and `body` instead of the resource
  std::string body{};
  std::string retry_after{};                  // Retry-After value, with `status`
  std::string location{};                     // Location, with a 3xx `status`
  std::optional<std::string> replace_body{};  // serve this instead of the resource's body (200, own length)
  std::optional<std::size_t> cut_after{};     // send this many body bytes, then drop the connection
  bool reset = false;                         // drop with a TCP reset instead of a clean close
  std::optional<std::size_t> stall_after{};   // send this many body bytes, then stay silent...
  std::chrono::milliseconds stall_for{0};     // ...for this long before going on
  bool range_from_zero = false;               // answer a Range request with 206 for the whole body
};

struct TlsFiles {
  std::filesystem::path cert;  // PEM
  std::filesystem::path key;   // PEM
};

// A loopback port nobody listens on (bound for a moment to find it, then closed).
int unused_loopback_port();

// Generates a self-signed certificate for 127.0.0.1 and localhost with the openssl CLI.
TlsFiles make_self_signed_cert(const std::filesystem::path& folder);

class HttpServer {
 public:
  HttpServer();
  explicit HttpServer(const TlsFiles& tls);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const { return port_; }
  // "http://127.0.0.1:PORT/path" (or https)
  std::string url(const std::string& path) const;

  void serve(const std::string& path, HttpResource resource);
  void push_fault(const std::string& path, HttpFault fault);

  std::vector<HttpRequest> requests() const;
  std::vector<HttpRequest> requests_for(const std::string& path) const;
  std::size_t count(const std::string& path) const { return requests_for(path).size(); }

 private:
  struct Connection;
  using Socket = std::intptr_t;  // a POSIX fd or a Winsock SOCKET
  void accept_loop();
  void handle(Socket fd);
  bool pause(std::chrono::milliseconds duration);  // false when the server is stopping

  void* tls_ = nullptr;  // SSL_CTX*
  Socket listen_fd_ = -1;
  int port_ = 0;
  mutable std::mutex mutex_;
  std::condition_variable stopping_cv_;
  bool stopping_ = false;
  std::map<std::string, HttpResource> resources_;
  std::map<std::string, std::deque<HttpFault>> faults_;
  std::vector<HttpRequest> log_;
  std::vector<Socket> open_fds_;
  std::vector<std::thread> workers_;
  std::thread acceptor_;
};

}  // namespace zcuda::test
