#include "support/http_server.hpp"

#ifdef _WIN32
#include <winsock2.h>
#include <ws2tcpip.h>
#else
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstdlib>
#include <stdexcept>

#include <fmt/format.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <zcuda/base/ascii.hpp>

namespace zcuda::test {

namespace {

// The few places where Winsock and BSD sockets differ.
#ifdef _WIN32
using native_socket = SOCKET;
using io_size = int;
constexpr int kShutdownBoth = SD_BOTH;
constexpr int kSendFlags = 0;
void close_socket(std::intptr_t s) { ::closesocket(static_cast<native_socket>(s)); }
struct WinsockStarted {
  WinsockStarted() {
    WSADATA data;
    if (WSAStartup(MAKEWORD(2, 2), &data) != 0) throw std::runtime_error("WSAStartup failed");
  }
};
#else
using native_socket = int;
using io_size = std::size_t;
constexpr int kShutdownBoth = SHUT_RDWR;
constexpr int kSendFlags = MSG_NOSIGNAL;  // a client that hangs up must not raise SIGPIPE
void close_socket(std::intptr_t s) { ::close(static_cast<native_socket>(s)); }
#endif
native_socket native(std::intptr_t s) { return static_cast<native_socket>(s); }
void shutdown_socket(std::intptr_t s) { ::shutdown(native(s), kShutdownBoth); }

std::string trim(const std::string& text) {
  auto begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return {};
  auto end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

const char* reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 206:
      return "Partial Content";
    case 301:
      return "Moved Permanently";
    case 302:
      return "Found";
    case 307:
      return "Temporary Redirect";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 408:
      return "Request Timeout";
    case 416:
      return "Range Not Satisfiable";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "Status";
  }
}

// "bytes=N-" or "bytes=N-M"; only the first range of a list is honoured.
bool parse_range(const std::string& value, std::size_t& first, std::optional<std::size_t>& last) {
  if (!value.starts_with("bytes=")) return false;
  auto spec = value.substr(6);
  auto dash = spec.find('-');
  if (dash == std::string::npos || dash == 0) return false;
  try {
    first = std::stoull(spec.substr(0, dash));
    auto rest = spec.substr(dash + 1);
    auto comma = rest.find(',');
    if (comma != std::string::npos) rest = rest.substr(0, comma);
    if (!rest.empty()) last = std::stoull(rest);
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

}  // namespace

struct HttpServer::Connection {
  Socket fd;
  SSL* ssl = nullptr;

  bool write_all(const char* data, std::size_t size) {
    while (size > 0) {
      long n = ssl ? SSL_write(ssl, data, static_cast<int>(std::min<std::size_t>(size, 1 << 20)))
                   : static_cast<long>(::send(native(fd), data, static_cast<io_size>(std::min<std::size_t>(size, 1 << 20)), kSendFlags));
      if (n <= 0) return false;
      data += n;
      size -= static_cast<std::size_t>(n);
    }
    return true;
  }
  bool write_all(const std::string& text) { return write_all(text.data(), text.size()); }
  long read_some(char* buffer, std::size_t size) {
    return ssl ? SSL_read(ssl, buffer, static_cast<int>(size)) : static_cast<long>(::recv(native(fd), buffer, static_cast<io_size>(size), 0));
  }
};

int unused_loopback_port() {
#ifdef _WIN32
  static const WinsockStarted winsock;
#endif
  const native_socket probe = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(probe, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) throw std::runtime_error("bind on loopback failed");
  socklen_t length = sizeof address;
  getsockname(probe, reinterpret_cast<sockaddr*>(&address), &length);
  close_socket(static_cast<std::intptr_t>(probe));
  return ntohs(address.sin_port);
}

TlsFiles make_self_signed_cert(const std::filesystem::path& folder) {
  TlsFiles files{folder / "cert.pem", folder / "key.pem"};
  std::string command = fmt::format(
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 "
      "-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1,DNS:localhost "
      "-keyout '{}' -out '{}' >/dev/null 2>&1",
      files.key.string(), files.cert.string());  // a POSIX shell command: the TLS tests do not run on Windows
  if (std::system(command.c_str()) != 0) throw std::runtime_error("openssl could not make a test certificate");
  return files;
}

HttpServer::HttpServer() {
#ifdef _WIN32
  static const WinsockStarted winsock;
  const native_socket listener = ::socket(AF_INET, SOCK_STREAM, 0);
  if (listener == INVALID_SOCKET) throw std::runtime_error("socket failed");
  listen_fd_ = static_cast<Socket>(listener);
#else
  // A client that hangs up mid-body must not kill the test process.
  std::signal(SIGPIPE, SIG_IGN);
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw std::runtime_error("socket failed");
  int one = 1;
  setsockopt(native(listen_fd_), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
#endif
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  if (::bind(native(listen_fd_), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(native(listen_fd_), 64) != 0) {
    throw std::runtime_error("bind/listen on loopback failed");
  }
  socklen_t length = sizeof address;
  getsockname(native(listen_fd_), reinterpret_cast<sockaddr*>(&address), &length);
  port_ = ntohs(address.sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
}

HttpServer::HttpServer(const TlsFiles& tls) : HttpServer() {
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (ctx == nullptr || SSL_CTX_use_certificate_file(ctx, tls.cert.string().c_str(), SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_use_PrivateKey_file(ctx, tls.key.string().c_str(), SSL_FILETYPE_PEM) != 1) {
    throw std::runtime_error("could not load the test certificate");
  }
  std::lock_guard lock(mutex_);
  tls_ = ctx;
}

HttpServer::~HttpServer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    for (Socket fd : open_fds_) shutdown_socket(fd);
  }
  stopping_cv_.notify_all();
#ifdef _WIN32
  close_socket(listen_fd_);  // wakes accept() (shutdown does not on Windows)
  if (acceptor_.joinable()) acceptor_.join();
  for (auto& worker : workers_) worker.join();
#else
  shutdown_socket(listen_fd_);  // wakes accept()
  if (acceptor_.joinable()) acceptor_.join();
  for (auto& worker : workers_) worker.join();
  close_socket(listen_fd_);
#endif
  if (tls_ != nullptr) SSL_CTX_free(static_cast<SSL_CTX*>(tls_));
}

std::string HttpServer::url(const std::string& path) const { return fmt::format("{}://127.0.0.1:{}{}", tls_ ? "https" : "http", port_, path); }

void HttpServer::serve(const std::string& path, HttpResource resource) {
  std::lock_guard lock(mutex_);
  resources_[path] = std::move(resource);
}

void HttpServer::push_fault(const std::string& path, HttpFault fault) {
  std::lock_guard lock(mutex_);
  faults_[path].push_back(std::move(fault));
}

std::vector<HttpRequest> HttpServer::requests() const {
  std::lock_guard lock(mutex_);
  return log_;
}

std::vector<HttpRequest> HttpServer::requests_for(const std::string& path) const {
  std::lock_guard lock(mutex_);
  std::vector<HttpRequest> out;
  for (const auto& r : log_) {
    if (r.target == path) out.push_back(r);
  }
  return out;
}

bool HttpServer::pause(std::chrono::milliseconds duration) {
  std::unique_lock lock(mutex_);
  return !stopping_cv_.wait_for(lock, duration, [this] { return stopping_; });
}

void HttpServer::accept_loop() {
  for (;;) {
#ifdef _WIN32
    const native_socket accepted = ::accept(native(listen_fd_), nullptr, nullptr);
    const Socket fd = accepted == INVALID_SOCKET ? -1 : static_cast<Socket>(accepted);
#else
    const Socket fd = ::accept4(native(listen_fd_), nullptr, nullptr, SOCK_CLOEXEC);
#endif
    if (fd < 0) {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
      continue;
    }
    std::lock_guard lock(mutex_);
    if (stopping_) {
      close_socket(fd);
      return;
    }
    open_fds_.push_back(fd);
    workers_.emplace_back([this, fd] { handle(fd); });
  }
}

void HttpServer::handle(Socket fd) {
  Connection c{fd};
  bool reset = false;
  auto finish = [&] {
    {
      std::lock_guard lock(mutex_);
      std::erase(open_fds_, fd);
    }
    if (c.ssl != nullptr) {
      if (!reset) SSL_shutdown(c.ssl);
      SSL_free(c.ssl);
    }
    if (reset) {
      linger hard{1, 0};  // close() now sends RST
      setsockopt(native(fd), SOL_SOCKET, SO_LINGER, reinterpret_cast<const char*>(&hard), sizeof hard);
    }
    close_socket(fd);
  };
  {
    std::lock_guard lock(mutex_);
    if (tls_ != nullptr) {
      c.ssl = SSL_new(static_cast<SSL_CTX*>(tls_));
      SSL_set_fd(c.ssl, static_cast<int>(fd));
    }
  }
  if (c.ssl != nullptr && SSL_accept(c.ssl) != 1) {  // e.g. the client refused our certificate
    ERR_clear_error();
    return finish();
  }

  std::string head;
  char buffer[4096];
  while (head.find("\r\n\r\n") == std::string::npos && head.size() < 65536) {
    long n = c.read_some(buffer, sizeof buffer);
    if (n <= 0) return finish();
    head.append(buffer, static_cast<std::size_t>(n));
  }
  HttpRequest request;
  {
    auto line_end = head.find("\r\n");
    std::string line = head.substr(0, line_end);
    auto sp1 = line.find(' '), sp2 = line.rfind(' ');
    request.method = line.substr(0, sp1);
    request.target = line.substr(sp1 + 1, sp2 - sp1 - 1);
    std::size_t pos = line_end + 2;
    for (;;) {
      auto end = head.find("\r\n", pos);
      if (end == std::string::npos || end == pos) break;
      std::string header = head.substr(pos, end - pos);
      auto colon = header.find(':');
      if (colon != std::string::npos) request.headers[zcuda::ascii_lower(trim(header.substr(0, colon)))] = trim(header.substr(colon + 1));
      pos = end + 2;
    }
  }

  std::optional<HttpFault> fault;
  std::optional<HttpResource> resource;
  {
    std::lock_guard lock(mutex_);
    log_.push_back(request);
    if (auto it = faults_.find(request.target); it != faults_.end() && !it->second.empty()) {
      fault = std::move(it->second.front());
      it->second.pop_front();
    }
    if (auto it = resources_.find(request.target); it != resources_.end()) resource = it->second;
  }

  auto send_head = [&](int status, const std::vector<std::string>& headers) {
    std::string text = fmt::format("HTTP/1.1 {} {}\r\nConnection: close\r\n", status, reason(status));
    for (const auto& h : headers) text += h + "\r\n";
    return c.write_all(text + "\r\n");
  };

  if (fault && fault->status != 0) {
    std::vector<std::string> headers{fmt::format("Content-Length: {}", fault->body.size())};
    if (!fault->retry_after.empty()) headers.push_back("Retry-After: " + fault->retry_after);
    if (!fault->location.empty()) headers.push_back("Location: " + fault->location);
    if (send_head(fault->status, headers)) c.write_all(fault->body);
    return finish();
  }
  if (!resource) {
    std::string body = "<html><body>404 Not Found</body></html>";
    if (send_head(404, {fmt::format("Content-Length: {}", body.size())})) c.write_all(body);
    return finish();
  }

  const std::string& full = fault && fault->replace_body ? *fault->replace_body : resource->body;
  int status = 200;
  std::size_t first = 0, last = full.empty() ? 0 : full.size() - 1;
  std::vector<std::string> headers;
  if (!resource->etag.empty()) headers.push_back("ETag: " + resource->etag);
  if (!resource->last_modified.empty()) headers.push_back("Last-Modified: " + resource->last_modified);
  if (!resource->content_type.empty()) headers.push_back("Content-Type: " + resource->content_type);
  std::string range = request.header("range");
  if (resource->ranges) headers.push_back("Accept-Ranges: bytes");
  if (resource->ranges && !range.empty()) {
    std::string if_range = request.header("if-range");
    bool same = if_range.empty() || (!resource->etag.empty() && if_range == resource->etag) ||
                (!resource->last_modified.empty() && if_range == resource->last_modified);
    std::size_t from = 0;
    std::optional<std::size_t> to;
    if (same && parse_range(range, from, to)) {
      if (from >= full.size()) {
        headers.push_back(fmt::format("Content-Range: bytes */{}", full.size()));
        headers.push_back("Content-Length: 0");
        send_head(416, headers);
        return finish();
      }
      status = 206;
      first = fault && fault->range_from_zero ? 0 : from;
      last = std::min(to.value_or(full.size() - 1), full.size() - 1);
      headers.push_back(fmt::format("Content-Range: bytes {}-{}/{}", first, last, full.size()));
    }
  }
  std::string_view body = full.empty() ? std::string_view() : std::string_view(full).substr(first, last - first + 1);
  if (resource->content_length) headers.push_back(fmt::format("Content-Length: {}", body.size()));
  if (!send_head(status, headers)) return finish();

  std::size_t limit = body.size();
  if (fault && fault->cut_after) limit = std::min(limit, *fault->cut_after);
  bool stalled = false;
  std::size_t sent = 0;
  while (sent < limit) {
    if (fault && fault->stall_after && !stalled && sent >= *fault->stall_after) {
      stalled = true;
      if (!pause(fault->stall_for)) break;
    }
    std::size_t n = std::min<std::size_t>(resource->chunk > 0 ? resource->chunk : 65536, limit - sent);
    if (fault && fault->stall_after && !stalled) n = std::min(n, *fault->stall_after - sent);
    if (!c.write_all(body.data() + sent, n)) break;
    sent += n;
    if (resource->chunk_delay.count() > 0 && sent < limit && !pause(resource->chunk_delay)) break;
  }
  reset = fault && fault->cut_after && fault->reset;
  finish();
}

}  // namespace zcuda::test
